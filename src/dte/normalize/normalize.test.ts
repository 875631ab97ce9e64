// The normalizer: the reference cases' totals, defaults, boletas, and what it changes.
import { describe, expect, it } from "vitest";
import cases from "../../../test/fixtures/normalization/cases.json" with { type: "json" };
import { type Node, normalizeDte } from "./normalize.ts";

describe("normalization reference cases", () => {
  for (const { case: name, document, totals } of cases as { case: string; document: Node; totals: Node }[]) {
    it(name, () => {
      const { dte } = normalizeDte(document, "2026-11-22");
      const actual = (dte.Encabezado as Node).Totales as Node;
      for (const [key, value] of Object.entries(totals)) {
        // A single retention may be written as an object; this normalizer always lists them.
        const want = key === "ImptoReten" && !Array.isArray(value) ? [value] : value;
        expect(actual[key], `${name}: ${key}`).toEqual(want);
      }
    });
  }
});

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

const totalsOf = (dte: Node) => (dte.Encabezado as Node).Totales as Node;
const doc = (tipo: number, detalle: Node[], extra: Node = {}): Node => ({
  Encabezado: { IdDoc: { TipoDTE: tipo, Folio: 1 } },
  Detalle: detalle,
  ...extra,
});

describe("normalization rules (docs/dte-engine.md §4), one at a time", () => {
  it("codes given as a scalar become CdgItem INT1, or CPCS on a line with a Retenedor", () => {
    const { dte } = normalizeDte(
      doc(33, [
        { NmbItem: "A", PrcItem: 1, CdgItem: "011" },
        { NmbItem: "B", PrcItem: 1, CdgItem: 7, Retenedor: { IndAgente: "R" } },
      ]),
      "2026-11-22",
    );
    const [a, b] = dte.Detalle as Node[];
    expect(a?.CdgItem).toEqual({ TpoCodigo: "INT1", VlrCodigo: "011" });
    expect(b?.CdgItem).toEqual({ TpoCodigo: "CPCS", VlrCodigo: "7" });
  });

  it("applies a line's discount percentage, then its surcharge percentage on the discounted amount", () => {
    const { dte } = normalizeDte(doc(33, [{ NmbItem: "A", QtyItem: 2, PrcItem: 1000, DescuentoPct: 10, RecargoPct: 5 }]), "2026-11-22");
    expect((dte.Detalle as Node[])[0]).toMatchObject({ DescuentoMonto: 200, RecargoMonto: 90, MontoItem: 1890 });
  });

  it("sends exempt lines to MntExe and non-billable ones to MontoNF, with MontoPeriodo = total + MontoNF", () => {
    const lines = [
      { NmbItem: "afecto", PrcItem: 1000 },
      { NmbItem: "exento", PrcItem: 500, IndExe: 1 },
      { NmbItem: "no facturable", PrcItem: 300, IndExe: 2 },
    ];
    const { dte } = normalizeDte(doc(33, lines), "2026-11-22");
    expect(totalsOf(dte)).toEqual({ MntNeto: 1000, MntExe: 500, TasaIVA: 19, IVA: 190, MontoNF: 300, MntTotal: 1690, MontoPeriodo: 1990 });
  });

  it("applies a global surcharge in pesos to the net, and a global discount with IndExeDR 1 to the exempt amount, before IVA", () => {
    const surcharge = normalizeDte(
      doc(33, [{ NmbItem: "A", PrcItem: 1000 }], { DscRcgGlobal: { TpoMov: "R", TpoValor: "$", ValorDR: 100 } }),
      "2026-11-22",
    );
    expect(totalsOf(surcharge.dte)).toMatchObject({ MntNeto: 1100, IVA: 209, MntTotal: 1309 });
    expect(surcharge.dte.DscRcgGlobal).toEqual([{ TpoMov: "R", TpoValor: "$", ValorDR: 100, NroLinDR: 1 }]);
    const exempt = normalizeDte(
      doc(34, [{ NmbItem: "A", PrcItem: 1000, IndExe: 1 }], { DscRcgGlobal: { TpoMov: "D", TpoValor: "%", ValorDR: 10, IndExeDR: 1 } }),
      "2026-11-22",
    );
    expect(totalsOf(exempt.dte)).toEqual({ MntExe: 900, MntTotal: 900 });
  });

  it("makes a boleta exenta's total its discounted exempt amount", () => {
    const { dte } = normalizeDte(
      doc(41, [{ NmbItem: "A", PrcItem: 2000, IndExe: 1 }], { DscRcgGlobal: { TpoMov: "D", TpoValor: "$", ValorDR: 500, IndExeDR: 1 } }),
      "2026-11-22",
    );
    expect(totalsOf(dte)).toEqual({ MntExe: 1500, MntTotal: 1500 });
  });

  it("adds additional taxes by the code's rate and drops supplied codes no line carries", () => {
    const { dte } = normalizeDte(
      doc(33, [{ NmbItem: "Pisco", PrcItem: 1000, CodImpAdic: 24 }], {
        Encabezado: { IdDoc: { TipoDTE: 33 }, Totales: { ImptoReten: { TipoImp: 27, MontoImp: 5 } } },
      }),
      "2026-11-22",
    );
    expect(totalsOf(dte)).toMatchObject({
      MntNeto: 1000,
      IVA: 190,
      ImptoReten: [{ TipoImp: 24, TasaImp: 31.5, MontoImp: 315 }],
      MntTotal: 1505,
    });
  });

  it("withholds retentions from the total; a partial one leaves IVANoRet", () => {
    const total = normalizeDte(doc(46, [{ NmbItem: "Trigo", PrcItem: 1000, CodImpAdic: 15 }]), "2026-11-22");
    expect(totalsOf(total.dte)).toMatchObject({ IVA: 190, ImptoReten: [{ TipoImp: 15, TasaImp: 19, MontoImp: 190 }], MntTotal: 1000 });
    expect(totalsOf(total.dte)).not.toHaveProperty("IVANoRet");
    const partial = normalizeDte(doc(46, [{ NmbItem: "Trigo", PrcItem: 10000, CodImpAdic: 34 }]), "2026-11-22");
    expect(totalsOf(partial.dte)).toMatchObject({
      IVA: 1900,
      ImptoReten: [{ TipoImp: 34, TasaImp: 4, MontoImp: 400 }],
      IVANoRet: 1500,
      MntTotal: 11500,
    });
  });

  it("splits gross line amounts (IdDoc.MntBruto 1) into net and IVA by subtraction", () => {
    const { dte } = normalizeDte(
      { Encabezado: { IdDoc: { TipoDTE: 33, MntBruto: 1 } }, Detalle: [{ NmbItem: "A", PrcItem: 680 }] },
      "2026-11-22",
    );
    expect(totalsOf(dte)).toMatchObject({ MntNeto: 571, IVA: 109, MntTotal: 680 });
  });

  it("keeps totals a document brings (an XML's), adding no tax or retention twice", () => {
    const given = {
      MntNeto: 10000,
      TasaIVA: 19,
      IVA: 1900,
      ImptoReten: { TipoImp: 34, TasaImp: 4, MontoImp: 400 },
      IVANoRet: 1500,
      MntTotal: 11500,
    };
    const { dte } = normalizeDte(
      { Encabezado: { IdDoc: { TipoDTE: 46 }, Totales: given }, Detalle: [{ NmbItem: "Trigo", PrcItem: 10000, CodImpAdic: 34 }] },
      "2026-11-22",
    );
    expect(totalsOf(dte)).toMatchObject({ MntNeto: 10000, IVA: 1900, IVANoRet: 1500, MntTotal: 11500 });
  });

  it("takes 65% of the IVA off the total for CredEC true (construction)", () => {
    const { dte } = normalizeDte(
      { Encabezado: { IdDoc: { TipoDTE: 33 }, Totales: { CredEC: true } }, Detalle: [{ NmbItem: "Obra", PrcItem: 1000 }] },
      "2026-11-22",
    );
    expect(totalsOf(dte)).toMatchObject({ MntNeto: 1000, IVA: 190, CredEC: 124, MntTotal: 1066 });
  });

  it("drops TasaIVA from a credit or debit note without a net amount", () => {
    const { dte } = normalizeDte(
      doc(61, [{ NmbItem: "A", PrcItem: 500, IndExe: 1 }], { Referencia: { TpoDocRef: 34, FolioRef: "9", CodRef: 1 } }),
      "2026-11-22",
    );
    expect(totalsOf(dte)).toEqual({ MntNeto: 0, MntExe: 500, MntTotal: 500 });
  });

  it("copies the issuer as receiver for a traslado interno (52, IndTraslado 5), cutting GiroRecep to 40", () => {
    const giro = "Servicios integrales de informática y otras actividades";
    const input = {
      Encabezado: {
        IdDoc: { TipoDTE: 52, IndTraslado: 5 },
        Emisor: {
          RUTEmisor: "76192083-9",
          RznSoc: "SASCO SpA",
          GiroEmis: giro,
          Telefono: ["221234567"],
          DirOrigen: "Santiago",
          CmnaOrigen: "Santiago",
        },
        // Its transfer data, required from 2026-11-01 (transfer-rules.ts).
        Transporte: {
          Patente: "ABCD12",
          RUTTrans: "76192083-9",
          Chofer: { RUTChofer: "11111111-1", NombreChofer: "Juana Pérez" },
          DirDest: "Bodega Quilicura 300",
          CmnaDest: "Quilicura",
        },
      },
      Detalle: { NmbItem: "Impresora", QtyItem: 1, UnmdItem: "UN" },
    };
    const { dte, warnings } = normalizeDte(input, "2026-11-22");
    expect((dte.Encabezado as Node).Receptor).toEqual({
      RUTRecep: "76192083-9",
      RznSocRecep: "SASCO SpA",
      GiroRecep: giro.slice(0, 40).trimEnd(),
      Contacto: "221234567",
      DirRecep: "Santiago",
      CmnaRecep: "Santiago",
    });
    expect(warnings).toContain("Encabezado.Receptor.GiroRecep truncated to 40 characters (the schema's maximum)");
    expect(totalsOf(dte)).toEqual({ MntNeto: 0, TasaIVA: 19, IVA: 0, MntTotal: 0 });
  });

  it("moves a boleta's CorreoRecep (the boleta has none) into a reference line, without the FchRef boletas lack", () => {
    const { dte } = normalizeDte(
      { ...doc(39, [{ NmbItem: "A", PrcItem: 1190 }]), Encabezado: { IdDoc: { TipoDTE: 39 }, Receptor: { CorreoRecep: "a@b.cl" } } },
      "2026-11-22",
    );
    expect((dte.Encabezado as Node).Receptor).toEqual({});
    expect(dte.Referencia).toEqual([{ RazonRef: "Email receptor: a@b.cl", NroLinRef: 1 }]);
    expect(totalsOf(dte)).toEqual({ MntTotal: 1190, MntNeto: 1000, IVA: 190 });
  });

  it("exports: every line exempt, FmaPago 3 as FmaPagExp 21, no CmnaRecep, sale modality 1 for goods, other currency converted", () => {
    const input = {
      Encabezado: {
        IdDoc: { TipoDTE: 110, FmaPago: 3 },
        Receptor: { RznSocRecep: "Buyer Inc", CmnaRecep: "Miami" },
        Totales: { TpoMoneda: "DOLAR USA" },
        OtraMoneda: { TpoMoneda: "PESO CL", TpoCambio: 950.5 },
      },
      Detalle: [{ NmbItem: "Vino", QtyItem: 2, PrcItem: 25.25 }],
    };
    const { dte, warnings } = normalizeDte(input, "2026-11-22");
    const head = dte.Encabezado as Node;
    expect((dte.Detalle as Node[])[0]).toMatchObject({ IndExe: 1, MontoItem: 50.5 });
    expect(head.IdDoc).toMatchObject({ FmaPagExp: 21 });
    expect(head.IdDoc).not.toHaveProperty("FmaPago");
    expect(head.Receptor).toEqual({ RznSocRecep: "Buyer Inc" });
    expect(head.Transporte).toEqual({ Aduana: { CodModVenta: 1 } });
    expect(totalsOf(dte)).toEqual({ TpoMoneda: "DOLAR USA", MntExe: 50.5, MntTotal: 50.5 });
    expect(head.OtraMoneda).toEqual({ TpoMoneda: "PESO CL", TpoCambio: 950.5, MntExeOtrMnda: 48000.25, MntTotOtrMnda: 48000 });
    expect(warnings).toContain("Detalle[0].IndExe = 1");
    const service = normalizeDte({ ...input, Encabezado: { ...input.Encabezado, IdDoc: { TipoDTE: 110, IndServicio: 4 } } }, "2026-11-22");
    expect((service.dte.Encabezado as Node).Transporte).toBeUndefined();
  });

  it("a factura exenta (34): lines without IndExe are exempt, no IVA is computed, and given IVA totals are removed", () => {
    const { dte, warnings } = normalizeDte(doc(34, [{ NmbItem: "Asesoría", QtyItem: 2, PrcItem: 5000 }]), "2026-11-22");
    expect((dte.Detalle as Node[])[0]).toMatchObject({ IndExe: 1, MontoItem: 10000 });
    expect(totalsOf(dte)).toEqual({ MntExe: 10000, MntTotal: 10000 });
    expect(warnings).toContain("Detalle[0].IndExe = 1");

    const given = normalizeDte(
      doc(
        34,
        [
          { NmbItem: "Curso", PrcItem: 20000 },
          { NmbItem: "Reembolso", PrcItem: 35000, IndExe: 2 },
        ],
        {
          Encabezado: { IdDoc: { TipoDTE: 34 }, Totales: { MntNeto: 20000, TasaIVA: 19, IVA: 3800 } },
        },
      ),
      "2026-11-22",
    );
    expect(totalsOf(given.dte)).toEqual({ MntExe: 20000, MontoNF: 35000, MntTotal: 20000, MontoPeriodo: 55000 });
    expect((given.dte.Detalle as Node[]).map((l) => l.IndExe)).toEqual([1, 2]);
    expect(given.warnings).toContain("Encabezado.Totales.IVA removed (type 34 carries no IVA)");
  });

  it("a boleta exenta (41): lines without IndExe are exempt, so no net amount or IVA is split from the total", () => {
    const { dte } = normalizeDte(doc(41, [{ NmbItem: "Entrada", QtyItem: 2, PrcItem: 5000 }]), "2026-11-22");
    expect((dte.Detalle as Node[])[0]).toMatchObject({ IndExe: 1, MontoItem: 10000 });
    expect(totalsOf(dte)).toEqual({ MntExe: 10000, MntTotal: 10000 });
  });

  it("a credit note that corrects text (CodRef 2), its lines without a price (absent or false), has zero amounts", () => {
    const note = doc(61, [{ NmbItem: "Corrige giro", QtyItem: 1, PrcItem: false }, { NmbItem: "Corrige dirección" }], {
      Referencia: { TpoDocRef: 33, FolioRef: "7", CodRef: 2, RazonRef: "Donde dice Comercio debe decir Servicios" },
    });
    const { dte, warnings } = normalizeDte(note, "2026-11-22");
    expect(dte.Detalle).toEqual([
      { NmbItem: "Corrige giro", QtyItem: 1, NroLinDet: 1, MontoItem: 0 },
      { NmbItem: "Corrige dirección", NroLinDet: 2, MontoItem: 0 },
    ]);
    expect(totalsOf(dte)).toEqual({ MntNeto: 0, MntExe: 0, MntTotal: 0 });
    expect(warnings).toContain("Detalle[0].PrcItem removed (false: no value)");
  });

  it("fills a payment without an amount with the total", () => {
    const { dte } = normalizeDte(
      { Encabezado: { IdDoc: { TipoDTE: 33, MntPagos: { FchPago: "2026-12-01" } } }, Detalle: [{ NmbItem: "A", PrcItem: 1000 }] },
      "2026-11-22",
    );
    expect(((dte.Encabezado as Node).IdDoc as Node).MntPagos).toEqual([{ FchPago: "2026-12-01", MntPago: 1190 }]);
  });
});
