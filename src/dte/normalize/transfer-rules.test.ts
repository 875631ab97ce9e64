// Res. Ex. SII N° 154 de 2025 from 2026-11-01: the gaps of a guía and of an invoice that accompanies goods.
import { describe, expect, it } from "vitest";
import { DteError } from "../errors.ts";
import { type Node, normalizeDte } from "./normalize.ts";
import { TRANSFER_RULES_FROM, transferGaps, transferRules } from "./transfer-rules.ts";

const transporte = (): Node => ({
  Patente: "ABCD12",
  RUTTrans: "76192083-9",
  Chofer: { RUTChofer: "11111111-1", NombreChofer: "Juana Pérez" },
  DirDest: "Bodega Quilicura 300",
  CmnaDest: "Quilicura",
});
const guia = (fchEmis: string, extra: Node = {}): Node => ({
  Encabezado: {
    IdDoc: { TipoDTE: 52, Folio: 1, FchEmis: fchEmis, IndTraslado: 1 },
    Emisor: { RUTEmisor: "76192083-9", RznSoc: "Comercial Sandbox SpA", DirOrigen: "Av. Providencia 1234", CmnaOrigen: "Providencia" },
    Receptor: { RUTRecep: "60803000-K", RznSocRecep: "Servicio de Impuestos Internos" },
    Transporte: transporte(),
    ...extra,
  },
  Detalle: [{ NmbItem: "Cajas de cartón", QtyItem: 10, UnmdItem: "UN", PrcItem: 1000 }],
});
const bare = (tipo: number, idDoc: Node = {}): Node => ({
  Encabezado: { IdDoc: { TipoDTE: tipo, Folio: 1, FchEmis: "2026-11-02", ...idDoc } },
  Detalle: [{ NmbItem: "Cajas", PrcItem: 1000 }],
});
const paths = (dte: Node, tipo: number) => transferGaps(dte, tipo).map((g) => g.path);

describe("the gaps of a guía de despacho (52)", () => {
  it("finds none in a guía with its transfer data", () => {
    expect(transferGaps(guia("2026-11-02"), 52)).toEqual([]);
  });

  it("names every missing field, the lines' quantity, unit and (a sale) price included", () => {
    expect(paths(bare(52, { IndTraslado: 1 }), 52)).toEqual([
      "Encabezado.Emisor.DirOrigen",
      "Encabezado.Emisor.CmnaOrigen",
      "Encabezado.Transporte.DirDest",
      "Encabezado.Transporte.CmnaDest",
      "Encabezado.Transporte.Chofer.RUTChofer",
      "Encabezado.Transporte.Chofer.NombreChofer",
      "Encabezado.Transporte.RUTTrans",
      "Encabezado.Transporte.Patente",
      "Detalle[0].QtyItem",
      "Detalle[0].UnmdItem",
    ]);
    expect(paths(bare(52), 52)[0]).toBe("Encabezado.IdDoc.IndTraslado");
  });

  it("asks the price only when the transfer is a sale (IndTraslado 1)", () => {
    const noPrice = (indTraslado: number) => {
      const dte = guia("2026-11-02");
      (dte.Encabezado as Node).IdDoc = { TipoDTE: 52, FchEmis: "2026-11-02", IndTraslado: indTraslado };
      dte.Detalle = [{ NmbItem: "Cajas", QtyItem: 1, UnmdItem: "UN" }];
      return paths(dte, 52);
    };
    expect(noPrice(1)).toEqual(["Detalle[0].PrcItem"]);
    expect(noPrice(5)).toEqual([]);
  });

  it("refuses a kind of transfer outside the schema's 1–9, an empty text and a RUT with a wrong check digit", () => {
    const dte = guia("2026-11-02");
    const head = dte.Encabezado as Node;
    (head.IdDoc as Node).IndTraslado = 10;
    (head.Transporte as Node).Patente = "  ";
    ((head.Transporte as Node).Chofer as Node).RUTChofer = "11111111-2";
    const gaps = transferGaps(dte, 52);
    expect(gaps.map((g) => g.path)).toEqual([
      "Encabezado.IdDoc.IndTraslado",
      "Encabezado.Transporte.Chofer.RUTChofer",
      "Encabezado.Transporte.Patente",
    ]);
    expect(gaps[1]?.message).toContain("is not a valid RUT");
  });

  it("reads a guía as the XML reader gives it: one line as an object", () => {
    const dte = guia("2026-11-02");
    dte.Detalle = { NmbItem: "Cajas", QtyItem: 1, PrcItem: 10 };
    expect(paths(dte, 52)).toEqual(["Detalle[0].UnmdItem"]);
  });
});

describe("invoices that accompany goods (IdDoc.TipoDespacho)", () => {
  it("leaves an invoice without TipoDespacho alone", () => {
    expect(transferGaps(bare(33), 33)).toEqual([]);
  });

  it("asks origin, destination and driver always, carrier and plate when the issuer carries (2 or 3)", () => {
    const driverAndPlaces = [
      "Encabezado.Emisor.DirOrigen",
      "Encabezado.Emisor.CmnaOrigen",
      "Encabezado.Transporte.DirDest",
      "Encabezado.Transporte.CmnaDest",
      "Encabezado.Transporte.Chofer.RUTChofer",
      "Encabezado.Transporte.Chofer.NombreChofer",
    ];
    expect(paths(bare(33, { TipoDespacho: 1 }), 33)).toEqual(driverAndPlaces);
    expect(paths(bare(34, { TipoDespacho: 2 }), 34)).toEqual([
      ...driverAndPlaces,
      "Encabezado.Transporte.RUTTrans",
      "Encabezado.Transporte.Patente",
    ]);
    expect(paths(bare(110, { TipoDespacho: 3 }), 110)).toHaveLength(8);
    expect(paths(bare(46, { TipoDespacho: 1 }), 46)).toHaveLength(6);
  });

  it("does not ask a credit note with TipoDespacho, which accompanies no goods", () => {
    expect(transferGaps(bare(61, { TipoDespacho: 1 }), 61)).toEqual([]);
  });

  it("refuses IndTraslado outside guías", () => {
    const gaps = transferGaps(bare(33, { IndTraslado: 1 }), 33);
    expect(gaps).toEqual([{ path: "Encabezado.IdDoc.IndTraslado", message: expect.stringContaining("guías de despacho (52) only") }]);
  });
});

describe("the date switch", () => {
  it("is 2026-11-01", () => {
    expect(TRANSFER_RULES_FROM).toBe("2026-11-01");
  });

  it("warns the day before and refuses from the day itself, by FchEmis (today when there is none)", () => {
    const before = transferRules(bare(52, { FchEmis: "2026-10-31", IndTraslado: 5 }), 52, "2026-12-01");
    expect(before.problems).toEqual([]);
    expect(before.warnings).toContain(
      "Encabezado.Transporte.Patente is required in a guía de despacho from 2026-11-01 (Res. Ex. SII 154/2025, resolutivo 1 c): accepted, the document being dated 2026-10-31",
    );
    const on = transferRules(bare(52, { FchEmis: "2026-11-01", IndTraslado: 5 }), 52, "2026-10-01");
    expect(on.warnings).toEqual([]);
    expect(on.problems.map((p) => p.path)).toContain("Encabezado.Transporte.Patente");
    const undated = bare(52, { IndTraslado: 5 });
    delete ((undated.Encabezado as Node).IdDoc as Node).FchEmis;
    expect(transferRules(undated, 52, "2026-10-31").problems).toEqual([]);
    expect(transferRules(undated, 52, "2026-11-01").problems).not.toEqual([]);
  });
});

describe("in the normalizer", () => {
  it("refuses a guía dated from the switch naming every gap in one error", () => {
    let error: unknown;
    try {
      normalizeDte(bare(52, { IndTraslado: 5 }), "2026-11-22");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DteError);
    const errors = (error as DteError).errors;
    expect(errors).toHaveLength(10);
    expect(errors).toContainEqual({
      path: "dte.Encabezado.Transporte.Chofer.RUTChofer",
      location: "body",
      message: "is required in a guía de despacho from 2026-11-01 (Res. Ex. SII 154/2025, resolutivo 1 b)",
    });
  });

  it("does not take the issuer copied as receiver (IndTraslado 5) for the destination", () => {
    const dte = guia("2026-10-30");
    const head = dte.Encabezado as Node;
    (head.IdDoc as Node).IndTraslado = 5;
    delete (head.Transporte as Node).DirDest;
    const { warnings } = normalizeDte(dte, "2026-11-22");
    expect(warnings.filter((w) => w.startsWith("Encabezado.Transporte."))).toEqual([
      "Encabezado.Transporte.DirDest is required in a guía de despacho from 2026-11-01 (Res. Ex. SII 154/2025, resolutivo 1 a): accepted, the document being dated 2026-10-30",
    ]);
  });

  it("keeps a complete guía as it was, with no transfer warning", () => {
    const { dte, warnings } = normalizeDte(guia("2026-11-22"), "2026-11-22");
    expect((dte.Encabezado as Node).Transporte).toEqual(transporte());
    expect(warnings.filter((w) => w.includes("154/2025"))).toEqual([]);
  });
});
