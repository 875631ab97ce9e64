// One test per sanitizing rule: ISO-8859-1 text, control characters and whitespace, schema
// lengths, RUTs, dates, numbers; and the values that cannot be fixed, refused at their path.
import { describe, expect, it } from "vitest";
import type { ApiError } from "../../platform/errors.ts";
import { fromDteError } from "../../platform/failure.ts";
import { DteError } from "../errors.ts";
import { TEXT_LIMITS } from "./fields.ts";
import { type Node, normalizeDte } from "./normalize.ts";
import { cleanControls, sanitizeDte, toLatin1Text } from "./sanitize.ts";

const factura = (extra: { emisor?: Node; receptor?: Node; idDoc?: Node; line?: Node } = {}): Node => ({
  Encabezado: {
    IdDoc: { TipoDTE: 33, Folio: 1, FchEmis: "2026-11-22", ...extra.idDoc },
    Emisor: { RUTEmisor: "76192083-9", RznSoc: "Comercial SpA", GiroEmis: "Comercio", Acteco: 479100, ...extra.emisor },
    Receptor: { RUTRecep: "60803000-K", RznSocRecep: "SII", ...extra.receptor },
  },
  Detalle: [{ NmbItem: "Item", QtyItem: 1, PrcItem: 1000, ...extra.line }],
});

const refused = (dte: Node, at?: string): ApiError => {
  try {
    normalizeDte(dte, "2026-11-22", at ? { at } : {});
  } catch (error) {
    if (error instanceof DteError) return fromDteError(error);
    throw error;
  }
  throw new Error("the document was accepted");
};

const emisor = (dte: Node) => (dte.Encabezado as Node).Emisor as Node;
const receptor = (dte: Node) => (dte.Encabezado as Node).Receptor as Node;
const line = (dte: Node) => (dte.Detalle as Node[])[0] as Node;

describe("text ISO-8859-1 can carry", () => {
  it("keeps accents and ñ, transliterates smart quotes, dashes, ellipsis and €, and drops emoji and other scripts", () => {
    expect(toLatin1Text("Ñuñoa “Peña” – 5€… 😀中")).toBe('Ñuñoa "Peña" - 5EUR... ');
    expect(toLatin1Text("Dvořák Łódź")).toBe("Dvorák ódz");
  });

  it("composes decomposed accents (n + combining tilde) into one character", () => {
    expect(toLatin1Text("Nun\u0303oa")).toBe("Nuñoa");
  });

  it("reports each cleaned field as path = value with the reason", () => {
    const { dte, warnings } = normalizeDte(factura({ emisor: { RznSoc: "Comercial “Sur” SpA" } }), "2026-11-22");
    expect(emisor(dte).RznSoc).toBe('Comercial "Sur" SpA');
    expect(warnings).toContain('Encabezado.Emisor.RznSoc = "Comercial \\"Sur\\" SpA" (characters outside ISO-8859-1 replaced or removed)');
  });
});

describe("control characters and whitespace", () => {
  it("removes control characters, turns line breaks and tabs into one space and trims the ends", () => {
    expect(cleanControls("  Línea 1\r\n\tLínea 2 \u0007\u0085fin  ")).toBe("Línea 1 Línea 2 fin");
  });

  it("keeps inner double spaces that are part of a name (they must match the CAF and TED)", () => {
    expect(cleanControls("EMPRESA  LTDA")).toBe("EMPRESA  LTDA");
  });

  it("applies to every text field of the document and says so", () => {
    const { dte, warnings } = normalizeDte(factura({ line: { DscItem: "uno\ndos" } }), "2026-11-22");
    expect(line(dte).DscItem).toBe("uno dos");
    expect(warnings).toContain('Detalle[0].DscItem = "uno dos" (control characters and surrounding whitespace removed)');
  });

  it("removes fields left empty, listing them", () => {
    const { dte, warnings } = normalizeDte(factura({ receptor: { Contacto: "  ", CorreoRecep: "" } }), "2026-11-22");
    expect(receptor(dte)).not.toHaveProperty("Contacto");
    expect(receptor(dte)).not.toHaveProperty("CorreoRecep");
    expect(warnings).toEqual(
      expect.arrayContaining(["Encabezado.Receptor.Contacto removed (empty)", "Encabezado.Receptor.CorreoRecep removed (empty)"]),
    );
  });
});

describe("schema maximum lengths", () => {
  it("has the limits of DTE_v10.xsd for the fields the brief names", () => {
    expect(TEXT_LIMITS).toMatchObject({
      RznSoc: 100,
      GiroEmis: 80,
      NmbItem: 80,
      DscItem: 1000,
      GiroRecep: 40,
      RznSocRecep: 100,
      RazonRef: 90,
    });
  });

  const cases: [string, (text: string) => Node, (dte: Node) => unknown, string, number][] = [
    ["RznSoc", (t) => factura({ emisor: { RznSoc: t } }), (d) => emisor(d).RznSoc, "Encabezado.Emisor.RznSoc", 100],
    ["GiroEmis", (t) => factura({ emisor: { GiroEmis: t } }), (d) => emisor(d).GiroEmis, "Encabezado.Emisor.GiroEmis", 80],
    ["GiroRecep", (t) => factura({ receptor: { GiroRecep: t } }), (d) => receptor(d).GiroRecep, "Encabezado.Receptor.GiroRecep", 40],
    ["DirRecep", (t) => factura({ receptor: { DirRecep: t } }), (d) => receptor(d).DirRecep, "Encabezado.Receptor.DirRecep", 70],
    ["CmnaRecep", (t) => factura({ receptor: { CmnaRecep: t } }), (d) => receptor(d).CmnaRecep, "Encabezado.Receptor.CmnaRecep", 20],
    ["DscItem", (t) => factura({ line: { DscItem: t } }), (d) => line(d).DscItem, "Detalle[0].DscItem", 1000],
  ];
  for (const [name, build, read, path, limit] of cases) {
    it(`cuts ${name} to ${limit} characters (counting ñ as one)`, () => {
      const { dte, warnings } = normalizeDte(build("ñ".repeat(limit + 7)), "2026-11-22");
      expect(read(dte)).toBe("ñ".repeat(limit));
      expect(warnings).toContain(`${path} truncated to ${limit} characters (the schema's maximum)`);
    });
  }

  it("leaves a value at exactly its limit alone", () => {
    const { warnings } = normalizeDte(factura({ line: { NmbItem: "x".repeat(80) } }), "2026-11-22");
    expect(warnings.filter((w) => w.includes("NmbItem"))).toEqual([]);
  });

  it("uses the boleta schema's longer GlosaSTI for 39 and 41", () => {
    const sti = (tipo: number) =>
      sanitizeDte({ Encabezado: { IdDoc: { TipoDTE: tipo } }, SubTotInfo: [{ GlosaSTI: "g".repeat(90) }] }, tipo);
    expect(sti(33).warnings).toEqual(["SubTotInfo[0].GlosaSTI truncated to 40 characters (the schema's maximum)"]);
    expect(sti(39).warnings).toEqual(["SubTotInfo[0].GlosaSTI truncated to 80 characters (the schema's maximum)"]);
  });

  it("cuts every item of a list of texts (Telefono 0..2)", () => {
    const { dte } = normalizeDte(factura({ emisor: { Telefono: ["+56 2 2345 6789 anexo 1234", "22"] } }), "2026-11-22");
    expect(emisor(dte).Telefono).toEqual(["+56 2 2345 6789 anex", "22"]);
  });
});

describe("RUTs", () => {
  it("writes them as digits, hyphen and an upper-case check digit, without dots or spaces", () => {
    const { dte, warnings } = normalizeDte(
      factura({ emisor: { RUTEmisor: "76.192.083-9" }, receptor: { RUTRecep: " 60803000-k" } }),
      "2026-11-22",
    );
    expect(emisor(dte).RUTEmisor).toBe("76192083-9");
    expect(receptor(dte).RUTRecep).toBe("60803000-K");
    expect(warnings).toContain('Encabezado.Receptor.RUTRecep = "60803000-K" (RUT written as digits, hyphen and check digit)');
  });

  it("refuses a wrong check digit or a malformed RUT with 400 naming the path", () => {
    const error = refused(factura({ emisor: { RUTEmisor: "76192083-1" } }));
    expect([error.status, error.code]).toEqual([400, "VALIDATION_ERROR"]);
    expect(error.init.errors?.[0]).toMatchObject({
      path: "dte.Encabezado.Emisor.RUTEmisor",
      message: expect.stringMatching(/wrong check digit/),
    });
    const malformed = refused(factura({ receptor: { RUTRecep: "ABC" } }), "xml.documentos[1]");
    expect(malformed.init.errors?.[0]?.path).toBe("xml.documentos[1].Encabezado.Receptor.RUTRecep");
  });

  it("checks RUTs wherever they appear (Referencia.RUTOtr, Transporte.Chofer.RUTChofer)", () => {
    const dte = { ...factura(), Referencia: [{ TpoDocRef: 33, FolioRef: "1", RUTOtr: "1-1" }] };
    expect(refused(dte).init.errors?.[0]?.path).toBe("dte.Referencia[0].RUTOtr");
    const chofer = factura();
    (chofer.Encabezado as Node).Transporte = { Chofer: { RUTChofer: "11111111-2", NombreChofer: "Juan" } };
    expect(refused(chofer).init.errors?.[0]?.path).toBe("dte.Encabezado.Transporte.Chofer.RUTChofer");
  });
});

describe("dates", () => {
  it("refuses impossible dates and dates outside 2000-01-01..2050-12-31", () => {
    expect(refused(factura({ idDoc: { FchEmis: "2026-02-30" } })).init.errors?.[0]).toMatchObject({
      path: "dte.Encabezado.IdDoc.FchEmis",
      message: expect.stringMatching(/is not a date/),
    });
    expect(refused(factura({ idDoc: { FchVenc: "22/11/2026" } })).init.errors?.[0]?.path).toBe("dte.Encabezado.IdDoc.FchVenc");
    expect(refused(factura({ idDoc: { FchEmis: "1999-12-31" } })).init.errors?.[0]?.message).toMatch(/outside the range/);
  });

  it("turns a Unix timestamp into the Chilean date it falls on", () => {
    // 2026-11-22T02:00:00Z is still the 21st in Santiago (UTC-3).
    const { dte, warnings } = normalizeDte(factura({ idDoc: { FchEmis: Date.UTC(2026, 10, 22, 2) / 1000 } }), "2026-11-22");
    expect(((dte.Encabezado as Node).IdDoc as Node).FchEmis).toBe("2026-11-21");
    expect(warnings).toContain(`Encabezado.IdDoc.FchEmis = "2026-11-21" (from the timestamp ${Date.UTC(2026, 10, 22, 2) / 1000})`);
  });
});

describe("numbers", () => {
  it("reads numeric strings as numbers", () => {
    const { dte } = normalizeDte(factura({ line: { QtyItem: "2", PrcItem: "1500.5" } }), "2026-11-22");
    expect(line(dte)).toMatchObject({ QtyItem: 2, PrcItem: 1500.5, MontoItem: 3001 });
  });

  it("refuses negative quantities and prices, text where a number goes, and discounts over 100%", () => {
    expect(refused(factura({ line: { QtyItem: -1 } })).init.errors?.[0]).toMatchObject({
      path: "dte.Detalle[0].QtyItem",
      message: "must not be negative (-1)",
    });
    expect(refused(factura({ line: { PrcItem: "-5" } })).init.errors?.[0]?.path).toBe("dte.Detalle[0].PrcItem");
    expect(refused(factura({ line: { QtyItem: "dos" } })).init.errors?.[0]?.message).toBe('"dos" is not a number');
    expect(refused(factura({ line: { DescuentoPct: 120 } })).init.errors?.[0]?.path).toBe("dte.Detalle[0].DescuentoPct");
  });

  it("lists every field that cannot be fixed in one answer", () => {
    const error = refused(factura({ emisor: { RUTEmisor: "1-2" }, line: { QtyItem: -1 } }));
    expect(error.init.errors?.map((e) => e.path)).toEqual(["dte.Encabezado.Emisor.RUTEmisor", "dte.Detalle[0].QtyItem"]);
    expect(error.message).toMatch(/and 1 more/);
  });

  it("pads a five-digit Acteco to six, once", () => {
    const { dte, warnings } = normalizeDte(factura({ emisor: { Acteco: 31341 } }), "2026-11-22");
    expect(emisor(dte).Acteco).toBe("031341");
    expect(warnings.filter((w) => w.startsWith("Encabezado.Emisor.Acteco"))).toEqual([
      'Encabezado.Emisor.Acteco = "031341" (five-digit activity code padded to six)',
    ]);
  });
});

describe("sanitizing is idempotent", () => {
  it("a second pass over a sanitized document changes nothing", () => {
    const dte = factura({ emisor: { RznSoc: " “A”\tB ", RUTEmisor: "76.192.083-9", Acteco: 31341 }, line: { NmbItem: "n".repeat(99) } });
    expect(sanitizeDte(dte, 33).warnings.length).toBeGreaterThan(0);
    const again = structuredClone(dte);
    expect(sanitizeDte(again, 33)).toEqual({ warnings: [], problems: [] });
    expect(again).toEqual(dte);
  });
});
