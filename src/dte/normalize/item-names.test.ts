// Res. Ex. SII N° 36 de 2024: an item name past 80 characters goes on in the same line's DscItem.
import { describe, expect, it } from "vitest";
import type { ApiError } from "../../platform/errors.ts";
import { fromDteError } from "../../platform/failure.ts";
import { DteError } from "../errors.ts";
import { splitItemName } from "./item-names.ts";
import { type Node, normalizeDte } from "./normalize.ts";

const factura = (line: Node, tipo = 33): Node => ({
  Encabezado: { IdDoc: { TipoDTE: tipo, Folio: 1, FchEmis: "2026-11-22" } },
  Detalle: [{ QtyItem: 1, PrcItem: 1000, ...line }],
});
const firstLine = (dte: Node) => (dte.Detalle as Node[])[0] as Node;

const refused = (dte: Node): ApiError => {
  try {
    normalizeDte(dte, "2026-11-22");
  } catch (error) {
    if (error instanceof DteError) return fromDteError(error);
    throw error;
  }
  throw new Error("the document was accepted");
};

// 72 characters of words, then more: the last space at or before the 80th is at 72.
const WORDS = "Servicio de mantención preventiva de equipos de climatización industrial";
const LONG = `${WORDS} termoventiladores con reemplazo de filtros`;

describe("splitting an item name at 80 characters", () => {
  it("cuts at the last space at or before the 80th character and trims the rest", () => {
    expect(WORDS.length).toBe(72);
    expect(splitItemName(LONG)).toEqual({ name: WORDS, rest: "termoventiladores con reemplazo de filtros" });
  });

  it("cuts at 80, inside a word, when the last space would leave fewer than 40 characters", () => {
    const name = `Kit ${"x".repeat(100)}`;
    expect(splitItemName(name)).toEqual({ name: name.slice(0, 80), rest: name.slice(80) });
  });

  it("keeps a name of 80 characters whole, and counts ñ as one character", () => {
    expect(splitItemName("ñ".repeat(80))).toEqual({ name: "ñ".repeat(80), rest: "" });
    expect(splitItemName("ñ".repeat(85))).toEqual({ name: "ñ".repeat(80), rest: "ñ".repeat(5) });
  });
});

describe("the normalizer moves an over-long name's rest to DscItem", () => {
  it("opens DscItem with the rest, keeps what DscItem said after it, and says so naming the line", () => {
    const { dte, warnings } = normalizeDte(factura({ NmbItem: LONG, DscItem: "Incluye visita técnica" }), "2026-11-22");
    expect(firstLine(dte)).toMatchObject({
      NmbItem: WORDS,
      DscItem: "termoventiladores con reemplazo de filtros Incluye visita técnica",
    });
    expect(warnings).toContain(
      'Detalle[0].NmbItem cut to 72 characters, "termoventiladores con reemplazo de filtros" moved to the start of Detalle[0].DscItem (Res. Ex. SII N° 36 de 2024: a name past 80 characters goes on in DscItem)',
    );
    expect(warnings.some((w) => w.includes("truncated"))).toBe(false);
  });

  it("creates DscItem when the line had none, and counts characters after cleaning (emoji out, ñ one)", () => {
    const { dte } = normalizeDte(factura({ NmbItem: `${"ñ".repeat(80)}😀 fin` }), "2026-11-22");
    expect(firstLine(dte)).toMatchObject({ NmbItem: "ñ".repeat(80), DscItem: "fin" });
  });

  it("does the same on a boleta's line", () => {
    const { dte } = normalizeDte(factura({ NmbItem: LONG }, 39), "2026-11-22");
    expect(firstLine(dte)).toMatchObject({ NmbItem: WORDS, DscItem: "termoventiladores con reemplazo de filtros" });
  });

  it("leaves names of 80 characters or fewer and their DscItem alone", () => {
    const { dte, warnings } = normalizeDte(factura({ NmbItem: "x".repeat(80), DscItem: "d" }), "2026-11-22");
    expect(firstLine(dte)).toMatchObject({ NmbItem: "x".repeat(80), DscItem: "d" });
    expect(warnings.filter((w) => w.includes("NmbItem") || w.includes("DscItem"))).toEqual([]);
  });

  it("refuses with a 400 naming the name when DscItem would pass its 1000 characters", () => {
    const error = refused(factura({ NmbItem: LONG, DscItem: "d".repeat(958) }));
    expect(error.status).toBe(400);
    expect(error.init.errors).toEqual([
      {
        path: "dte.Detalle[0].NmbItem",
        location: "body",
        message:
          "is 115 characters: past the first 72 it goes on in DscItem (Res. Ex. SII N° 36 de 2024), which would then be 1001 characters, beyond the schema's 1000",
      },
    ]);
  });

  it("accepts a DscItem filled to exactly 1000 by the move", () => {
    const { dte } = normalizeDte(factura({ NmbItem: LONG, DscItem: "d".repeat(957) }), "2026-11-22");
    expect((firstLine(dte).DscItem as string).length).toBe(1000);
  });
});
