// The normalizer against the reference totals of LibreDTE's example documents (shared fixtures).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Node, normalizeDte } from "./normalize.ts";

const fixtures = join(import.meta.dirname, "..", "..", "..", "..", "shared", "fixtures", "normalization");
const available = existsSync(join(fixtures, "montos_esperados.json"));

describe.skipIf(!available)(
  `normalization reference cases (${available ? fixtures : "skipped: ../shared/fixtures/normalization is absent"})`,
  () => {
    const expected = available ? (JSON.parse(readFileSync(join(fixtures, "montos_esperados.json"), "utf8")) as Record<string, Node>) : {};
    for (const [name, totals] of Object.entries(expected)) {
      it(name, () => {
        const type = name.split("_")[0] ?? "";
        const input = JSON.parse(readFileSync(join(fixtures, type, `${name}.json`), "utf8")) as Node;
        const { dte } = normalizeDte(input, "2026-11-22");
        const actual = (dte.Encabezado as Node).Totales as Node;
        for (const [key, value] of Object.entries(totals)) {
          // The reference writes a single retention as an object; this normalizer always lists them.
          const want = key === "ImptoReten" && !Array.isArray(value) ? [value] : value;
          expect(actual[key], `${name}: ${key}`).toEqual(want);
        }
      });
    }
    it("covers every fixture file", () => {
      const files = readdirSync(fixtures)
        .filter((d) => /^\d+$/.test(d))
        .flatMap((d) => readdirSync(join(fixtures, d)));
      expect(files.map((f) => f.replace(/\.json$/, "")).sort()).toEqual(Object.keys(expected).sort());
    });
  },
);

describe("normalizer", () => {
  it("fills defaults, numbers lines and references, lists what it changed, and leaves its input alone", () => {
    const input = {
      Encabezado: { IdDoc: { TipoDTE: 33 } },
      Detalle: { NmbItem: "X", PrcItem: 1000 },
      Referencia: { TpoDocRef: 801, FolioRef: "1" },
    };
    const { dte, warnings } = normalizeDte(input, "2026-11-22");
    expect(input.Detalle).toEqual({ NmbItem: "X", PrcItem: 1000 });
    const head = dte.Encabezado as Node;
    expect(head.IdDoc).toMatchObject({ FchEmis: "2026-11-22", TpoTranVenta: 1 });
    expect(dte.Detalle).toEqual([{ NmbItem: "X", PrcItem: 1000, NroLinDet: 1, QtyItem: 1, MontoItem: 1000 }]);
    expect(dte.Referencia).toEqual([{ TpoDocRef: 801, FolioRef: "1", NroLinRef: 1, FchRef: "2026-11-22" }]);
    expect(head.Totales).toEqual({ MntNeto: 1000, TasaIVA: 19, IVA: 190, MntTotal: 1190 });
    expect(warnings).toContain("Detalle[0].MontoItem = 1000");
    expect(warnings).toContain("Encabezado.Totales.IVA = 190");
  });

  it("computes a boleta's net from its gross by subtraction, as the reference does", () => {
    const { dte } = normalizeDte({ Encabezado: { IdDoc: { TipoDTE: 39 } }, Detalle: [{ NmbItem: "A", PrcItem: 5000 }] }, "2026-11-22");
    expect((dte.Encabezado as Node).Totales).toMatchObject({ MntNeto: 4202, IVA: 798, MntTotal: 5000 });
  });
});
