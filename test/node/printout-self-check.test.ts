// The printout checks itself: every reference case (all 12 types, discounts, additional taxes and
// retentions, exports, guías with their transfer, references) is generated, signed, printed on
// letter and on an 80 mm roll, and read back as text by poppler's pdftotext, as a reader of the
// page would: every non-zero amount of the XML's Totales, ImptoReten, DscRcgGlobal and OtraMoneda
// is on it, the printed components add up to the printed TOTAL, an export prints its currency, a
// guía its transfer, and references their document's name. The model is checked without poppler.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCertificateCredential, type SigningCredential } from "../../src/certificates/credentials.ts";
import { generateDocuments } from "../../src/dte/generate/generate.ts";
import type { Node } from "../../src/dte/normalize/normalize.ts";
import { escposReceipt } from "../../src/dte/render/escpos.ts";
import { referenceName, TRANSFER_KINDS } from "../../src/dte/render/labels.ts";
import { type PrintedDocument, printedDocument } from "../../src/dte/render/model.ts";
import { money } from "../../src/dte/render/money.ts";
import { pdfDocument } from "../../src/dte/render/pdf.ts";
import { referenceText, totalsBlock } from "../../src/dte/render/sections.ts";
import { type RsaPublicKey, SII_CAF_KEYS } from "../../src/dte/verify/timbre.ts";
import { childElements, localName, parseXml, type XmlElement } from "../../src/dte/xml/parse.ts";
import { base64ToBytes } from "../../src/lib/encoding.ts";
import { decodeLatin1 } from "../../src/lib/latin1.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { buildCaf, sandboxCafPublicKey } from "../../src/sandbox/folios-caf.ts";
import { fixturePath } from "../support/fixtures.ts";

const COMPANY = "76192083-9";
const NOW = new Date("2026-11-20T13:00:00Z");
const POPPLER = spawnSync("pdftotext", ["-v"]).status === 0;
const sandboxKey = sandboxCafPublicKey();
const cafKeys = new Map<string, RsaPublicKey>([...SII_CAF_KEYS, [sandboxKey.idk, sandboxKey]]);
const cafs = new Map<number, Promise<string>>();
const cafFor = (tipo: number) => {
  if (!cafs.has(tipo))
    cafs.set(tipo, buildCaf({ rut: COMPANY, razonSocial: "COMERCIAL SANDBOX SPA", tipo, desde: 1, hasta: 10, fecha: "2026-11-01" }));
  return cafs.get(tipo) as Promise<string>;
};
let signer: SigningCredential;
let folder: string;

beforeAll(async () => {
  const cert = SANDBOX_TAXPAYER_CERTS["11111111-1"];
  signer = await parseCertificateCredential({ "cert-data": cert.certPem, "pkey-data": cert.keyPem }, NOW);
  folder = mkdtempSync(join(tmpdir(), "printout-"));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/**
 * The issue's invoice: a line with a 10 % discount, an exempt line, a 5 % global discount and the
 * additional tax 271 (18 %); the issuer's and receiver's optional fields; an order referenced
 * without a reason.
 */
const ISSUE_EXAMPLE: Node = {
  Encabezado: {
    IdDoc: { TipoDTE: 33, Folio: 1 },
    Emisor: {
      RUTEmisor: COMPANY,
      RznSoc: "Empresa Sandbox SpA",
      GiroEmis: "Servicios de prueba",
      Telefono: "+56 2 2345 6789",
      CorreoEmisor: "ventas@sandbox.cl",
      Acteco: 726000,
      Sucursal: "Casa Matriz",
      CdgSIISucur: 81234567,
      DirOrigen: "Calle Emisora 100",
      CmnaOrigen: "Santiago",
      CdgVendedor: "VEND-7",
    },
    Receptor: {
      RUTRecep: "22222222-2",
      RznSocRecep: "Receptora de Prueba Ltda",
      GiroRecep: "Comercio",
      Contacto: "María Soto",
      CorreoRecep: "compras@receptora.cl",
      DirRecep: "Calle Receptora 200",
      CmnaRecep: "Providencia",
      CiudadRecep: "Santiago",
      DirPostal: "Casilla 123",
    },
  },
  Detalle: [
    { NmbItem: "Asesoría", QtyItem: 2, UnmdItem: "hrs", PrcItem: 45_990.5, DescuentoPct: 10, CodImpAdic: 271 },
    { NmbItem: "Traslado", IndExe: 1, QtyItem: 1, PrcItem: 12_000 },
  ],
  DscRcgGlobal: { TpoMov: "D", TpoValor: "%", ValorDR: 5, GlosaDR: "Pronto pago" },
  Referencia: { TpoDocRef: 801, FolioRef: "OC-77", FchRef: "2026-11-01" },
};

const references = (JSON.parse(readFileSync(fixturePath("normalization", "cases.json"), "utf8")) as { case: string; document: Node }[])
  .map((r) => [r.case, r.document] as const)
  .concat([["33 the issue's example", ISSUE_EXAMPLE]]);

/** The case generated and signed as the gateway does, and its DTE read back. */
async function signed(document: Node): Promise<{ xml: string; documento: XmlElement; printed: PrintedDocument }> {
  const input = structuredClone(document);
  const encabezado = input.Encabezado as Node;
  // The cases' issuer is put in the sandbox company, so its CAFs fit.
  (encabezado.Emisor as Node).RUTEmisor = COMPANY;
  (encabezado.IdDoc as Node).Folio = 1;
  delete (encabezado.IdDoc as Node).FchEmis;
  const tipo = Number((encabezado.IdDoc as Node).TipoDTE);
  const out = await generateDocuments(
    { documents: [input], cafs: [await cafFor(tipo)], resolucion: { fecha: "2014-08-22", numero: 80 }, normalizar: true },
    { signer, now: NOW, cafKeys },
  );
  const xml = decodeLatin1(base64ToBytes(out.documentos[0]?.dte_xml as string));
  const parsed = parseXml(xml);
  const documento = childElements(parsed.root).find((c) => ["Documento", "Liquidacion", "Exportaciones"].includes(localName(c.name)));
  return { xml, documento: documento as XmlElement, printed: printedDocument(parsed, documento as XmlElement) };
}

/** The page as poppler's pdftotext lays it out. */
function pdfText(pdf: Uint8Array, name: string): string {
  const file = join(folder, `${name}.pdf`);
  writeFileSync(file, pdf);
  const run = spawnSync("pdftotext", ["-layout", "-enc", "UTF-8", file, "-"]);
  expect(run.status, run.stderr.toString()).toBe(0);
  return run.stdout.toString("utf8");
}

/** The test's own reading of how an amount prints: `1.234.567,5`, after `$ ` or the currency's name, `- ` before a negative one. */
function printed(value: number, currency = "$"): string {
  const [whole = "", decimals] = Math.abs(value).toString().split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+$)/g, ".");
  return `${value < 0 ? "- " : ""}${currency} ${grouped}${decimals ? `,${decimals}` : ""}`;
}

/** Every element of `parent` named `name`, and the numeric text of a child. */
const all = (xml: string, name: string) => [...xml.matchAll(new RegExp(`<${name}>([\\s\\S]*?)</${name}>`, "g"))].map((m) => m[1] as string);
const value = (block: string, name: string) => {
  const m = new RegExp(`<${name}>([^<]*)</${name}>`).exec(block);
  return m ? Number(m[1]) : null;
};
const text = (block: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(block)?.[1] ?? "";

/** What the XML says must be on the page: each non-zero amount as printed, in its currency. */
function expectedAmounts(xml: string): string[] {
  const totales = all(xml, "Totales")[0] ?? "";
  const currencyOf = (name: string) => (!name || name === "PESO CL" ? "$" : name);
  const currency = currencyOf(text(totales, "TpoMoneda"));
  const amounts: string[] = [];
  for (const name of [
    "MntNeto",
    "MntExe",
    "IVA",
    "IVAProp",
    "IVATerc",
    "IVANoRet",
    "CredEC",
    "GrntDep",
    "MntTotal",
    "MontoNF",
    "MontoPeriodo",
    "SaldoAnterior",
    "VlrPagar",
  ]) {
    const v = value(totales.replace(/<ImptoReten>[\s\S]*?<\/ImptoReten>|<Comisiones>[\s\S]*?<\/Comisiones>/g, ""), name);
    if (v) amounts.push(printed(v, currency));
  }
  for (const tax of all(totales, "ImptoReten")) {
    const monto = value(tax, "MontoImp");
    if (monto) amounts.push(printed(monto, currency));
    // Its rate in the same Chilean form: 31,5%.
    amounts.push(`${String(value(tax, "TasaImp")).replace(".", ",")}%`);
  }
  const comisiones = all(totales, "Comisiones")[0];
  if (comisiones) {
    const sum = ["ValComNeto", "ValComExe", "ValComIVA"].reduce((s, k) => s + (value(comisiones, k) ?? 0), 0);
    if (sum) amounts.push(printed(-sum, currency));
  }
  for (const dr of all(xml, "DscRcgGlobal")) {
    const v = value(dr, "ValorDR") ?? 0;
    amounts.push(text(dr, "TpoValor") === "%" ? `${String(v).replace(".", ",")}%` : printed(text(dr, "TpoMov") === "D" ? -v : v, currency));
  }
  const otra = all(xml, "OtraMoneda")[0];
  if (otra) {
    const other = currencyOf(text(otra, "TpoMoneda"));
    amounts.push(text(otra, "TpoMoneda"));
    for (const name of ["MntNetoOtrMnda", "MntExeOtrMnda", "IVAOtrMnda", "MntTotOtrMnda"]) {
      const v = value(otra, name);
      if (v) amounts.push(printed(v, other));
    }
  }
  return amounts;
}

// pdftotext joins `$ 0` into `$0`: the space is optional when reading back.
const AMOUNT = /(- )?(\$|[A-Z][A-Z ]*[A-Z]) ?([\d.]+(?:,\d+)?)\s*$/;
const parsed = (m: RegExpExecArray) => (m[1] ? -1 : 1) * Number((m[3] as string).replace(/\./g, "").replace(",", "."));

/** The printed totals block read back: the rows under `Totales` down to `TOTAL`, and the TOTAL. */
function printedTotals(page: string): { components: number[]; total: number } {
  const lines = page.split("\n");
  const start = lines.findIndex((l) => /\bTotales\s*$/.test(l));
  expect(start, "the totals block's title").toBeGreaterThanOrEqual(0);
  const components: number[] = [];
  for (const line of lines.slice(start + 1)) {
    const m = AMOUNT.exec(line);
    expect(m, `an amount ends the totals row ${JSON.stringify(line)}`).not.toBeNull();
    if (/\bTOTAL\s+(- )?\S/.test(line)) return { components, total: parsed(m as RegExpExecArray) };
    components.push(parsed(m as RegExpExecArray));
  }
  throw new Error("no TOTAL row");
}

describe("the printed model (no poppler needed)", () => {
  it("writes amounts one way: a space after the sign, `- ` before a negative, an export's currency by name", () => {
    expect([money(31_500), money(0), money(-5_950), money(1_234_567.5), money(10.5, "DOLAR USA"), money(500, "PESO CL")]).toEqual([
      "$ 31.500",
      "$ 0",
      "- $ 5.950",
      "$ 1.234.567,5",
      "DOLAR USA 10,5",
      "$ 500",
    ]);
  });

  it("names referenced documents, and every kind of transfer DTE_v10.xsd allows", () => {
    expect(["33", "34", "52", "112", "801", "813", "820", "HES"].map(referenceName)).toEqual([
      "Factura Electrónica",
      "Factura no Afecta o Exenta Electrónica",
      "Guía de Despacho Electrónica",
      "Nota de Crédito de Exportación Electrónica",
      "Orden de Compra",
      "Pasaporte",
      "Código de Inscripción en el Registro de Acuerdos con Plazo de Pago Excepcional",
      "HES",
    ]);
    const xsd = readFileSync(fixturePath("sii-schemas", "DTE_v10.xsd"), "latin1");
    const indTraslado = /<xs:element name="IndTraslado"[\s\S]*?<\/xs:element>/.exec(xsd)?.[0] ?? "";
    const allowed = [...indTraslado.matchAll(/<xs:enumeration value="(\d+)"/g)].map((m) => Number(m[1]));
    expect(allowed).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(Object.keys(TRANSFER_KINDS).map(Number)).toEqual(allowed);
  });

  it("reads the issue's invoice: the line discount, the global discount, the additional tax and the optional fields", async () => {
    const { printed: doc } = await signed(ISSUE_EXAMPLE);
    expect(doc.lineas[0]).toMatchObject({
      cantidad: 2,
      unidad: "hrs",
      precio: 45_990.5,
      descuento_pct: 10,
      descuento: 9198,
      monto: 82_783,
    });
    expect(doc.lineas[1]?.exento).toBe(true);
    expect(doc.descuentos_globales).toEqual([{ tipo: "D", unidad: "%", valor: 5, glosa: "Pronto pago", exento: "" }]);
    expect(doc.totales.impuestos).toEqual([{ tipo: 271, tasa: 18, monto: expect.any(Number) }]);
    expect(doc.emisor).toMatchObject({
      telefonos: ["+56 2 2345 6789"],
      correo: "ventas@sandbox.cl",
      actecos: ["726000"],
      vendedor: "VEND-7",
    });
    expect(doc.receptor).toMatchObject({ contacto: "María Soto", correo: "compras@receptora.cl", ciudad: "Santiago" });
    const block = totalsBlock(doc);
    expect(block.components.map((r) => r.label)).toEqual(["Neto", "Exento", "IVA 19%", "Bebidas azucaradas (271) 18%"]);
    expect(block.components.reduce((sum, r) => sum + r.value, 0)).toBe(doc.totales.total);
    expect(block.total.text).toBe(printed(doc.totales.total));
    // The receipt prints what the page prints.
    const receipt = Buffer.from(escposReceipt(doc, { papel: "80mm", codepage: "WPC1252" })).toString("latin1");
    for (const part of ["2 x 45.990,5 - 9.198 (10%)", "Descuento global: Pronto pago", "Bebidas azucaradas (271) 18%", "Vendedor: VEND-7"])
      expect(receipt).toContain(part);
    expect(receipt).toMatch(new RegExp(`TOTAL +\\${printed(doc.totales.total)}`));
    // On 58 mm paper a label too long for its amount's line keeps every word, the amount under it.
    const narrow = Buffer.from(escposReceipt(doc, { papel: "58mm", codepage: "WPC1252" })).toString("latin1");
    const tax = doc.totales.impuestos[0]?.monto as number;
    expect(narrow).toContain(`Bebidas azucaradas (271) 18%\n${printed(tax).padStart(32)}\n`);
    // The order by name, and no colon when there is neither a use nor a reason.
    expect(referenceText(doc.referencias[0] as PrintedDocument["referencias"][number])).toBe("Orden de Compra N° OC-77 del 2026-11-01");
  });

  it("takes retentions off and commissions off, and prints negatives alike in lists and totals", async () => {
    for (const [name, document] of references.filter(([n]) => /^(46-00[34]|43-00[12])/.test(n))) {
      const { printed: doc } = await signed(document);
      const block = totalsBlock(doc);
      expect(
        block.components.reduce((sum, r) => sum + r.value, 0),
        name,
      ).toBe(doc.totales.total);
    }
    const { printed: liquidacion } = await signed(references.find(([n]) => n.startsWith("43-001"))?.[1] as Node);
    const receipt = Buffer.from(escposReceipt(liquidacion, { papel: "80mm", codepage: "WPC1252" })).toString("latin1");
    expect(receipt).toMatch(/Comisiones y otros cargos +- \$ 5\.950/);
    expect(receipt).not.toMatch(/\$ -\d|(^|\s)-\d/m);
  });

  it("prints an export's currency and other-currency block on the receipt, and a guía's transfer", async () => {
    const { printed: exportDoc } = await signed(references.find(([n]) => n.startsWith("110-002"))?.[1] as Node);
    const receipt = Buffer.from(escposReceipt(exportDoc, { papel: "80mm", codepage: "WPC1252" })).toString("latin1");
    expect(receipt).toMatch(/TOTAL +DOLAR USA 50/);
    expect(receipt).toContain("Otra moneda: PESO CL, tipo de cambio 500");
    expect(receipt).toMatch(/Total +\$ 25\.000/);
    expect(receipt).toContain("Ref.: Pasaporte N° E12345");
    const { printed: guia } = await signed(references.find(([n]) => n.startsWith("52-001"))?.[1] as Node);
    const guiaReceipt = Buffer.from(escposReceipt(guia, { papel: "80mm", codepage: "WPC1252" })).toString("latin1");
    for (const part of [
      "Tipo de traslado: 1: Operación constituye venta",
      "Patente: ABCD12",
      "Conductor de Prueba, R.U.T. 1-9",
      "Quilicura",
    ])
      expect(guiaReceipt).toContain(part);
  });
});

describe.skipIf(!POPPLER)("every reference case printed and read back (poppler's pdftotext; skipped where it is not installed)", () => {
  it.each(references)("%s", async (name, document) => {
    const { xml, printed: doc } = await signed(document);
    const currency = text(all(xml, "Totales")[0] ?? "", "TpoMoneda");
    for (const papel of ["carta", "80mm"] as const) {
      const page = pdfText(
        await pdfDocument([doc], {
          papel,
          cedible: false,
          copias: 1,
          resolucion: { numero: 80, fecha: "2014-08-22" },
          oficina_sii: "PROVIDENCIA",
          logo: null,
        }),
        `${name}-${papel}`.replace(/\W+/g, "-"),
      );
      const flat = page.replace(/[ \t]+/g, " ");
      for (const amount of expectedAmounts(xml)) expect(flat, `${papel}: ${amount}`).toContain(amount);
      const { components, total } = printedTotals(page);
      expect(total, `${papel}: the printed TOTAL`).toBe(value(all(xml, "Totales")[0] ?? "", "MntTotal"));
      expect(Math.round(components.reduce((a, b) => a + b, 0) * 1e6) / 1e6, `${papel}: the printed components add up`).toBe(total);
      // The receiver's nationality by name (the cases' only foreign receivers are from the US).
      const nacionalidad = text(all(xml, "Extranjero")[0] ?? "", "Nacionalidad");
      if (nacionalidad) expect(flat, `${papel}: nationality`).toContain(`${nacionalidad === "225" ? "Estados Unidos" : "?"} (225)`);
      if (currency) {
        expect(flat).toContain(`TOTAL ${currency} `);
        expect(flat).not.toMatch(/TOTAL \$/);
      }
      if (doc.tipo === 52) {
        const transporte = all(xml, "Transporte")[0] ?? "";
        for (const field of ["Patente", "RUTTrans", "RUTChofer", "NombreChofer", "DirDest", "CmnaDest"])
          if (text(transporte, field)) expect(flat, `${papel}: ${field}`).toContain(text(transporte, field));
        expect(flat).toMatch(/Tipo de traslado: (1: Operación constituye venta|5: Traslados internos)/);
      }
      for (const ref of all(xml, "Referencia")) {
        const code = text(ref, "TpoDocRef");
        const names: Record<string, string> = {
          "33": "Factura Electrónica",
          "52": "Guía de Despacho Electrónica",
          "61": "Nota de Crédito Electrónica",
        };
        Object.assign(names, { "110": "Factura de Exportación Electrónica", "112": "Nota de Crédito de Exportación Electrónica" });
        Object.assign(names, { "801": "Orden de Compra", "813": "Pasaporte" });
        const printedRef = `${names[code]} N° ${text(ref, "FolioRef")}${text(ref, "FchRef") ? ` del ${text(ref, "FchRef")}` : ""}`;
        expect(flat, `${papel}: reference ${code}`).toContain(printedRef);
        expect(flat).not.toMatch(new RegExp(`\\b${code} N°`));
        // A colon only before a use or a reason.
        if (!text(ref, "RazonRef") && !text(ref, "CodRef")) expect(flat).not.toContain(`${printedRef}:`);
      }
    }
  });
});
