// The DTE generator end to end, without HTTP: every document type and every reference input of the
// shared fixtures becomes a signed DTE and envelope that the SII's schemas accept, whose signatures
// an independent XMLDSig implementation (xml-crypto) verifies, whose TED verifies with the CAF's key;
// and every CAF or document problem stops it with the field named.
import { createVerify } from "node:crypto";
import { readFileSync } from "node:fs";
import { inflateSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { parseCertificateCredential, type SigningCredential } from "../../src/certificates/credentials.ts";
import { DteError } from "../../src/dte/errors.ts";
import { type GenerateRequest, generateDocuments } from "../../src/dte/generate/generate.ts";
import type { Node } from "../../src/dte/normalize/normalize.ts";
import { escposReceipt } from "../../src/dte/render/escpos.ts";
import { DOCUMENT_NAMES, printedDocument } from "../../src/dte/render/model.ts";
import { pdfDocument } from "../../src/dte/render/pdf.ts";
import { inspectEnvelope } from "../../src/dte/verify/envelope.ts";
import { type RsaPublicKey, SII_CAF_KEYS, verifyStamp } from "../../src/dte/verify/timbre.ts";
import { childElements, localName, parseXml, type XmlElement } from "../../src/dte/xml/parse.ts";
import { base64ToBytes } from "../../src/lib/encoding.ts";
import { decodeLatin1, encodeLatin1 } from "../../src/lib/latin1.ts";
import { fromDteError } from "../../src/platform/failure.ts";
import { EXAMPLE_ISSUER, EXAMPLE_RECEIVER, EXAMPLE_TRANSPORT } from "../../src/routes/example-documents.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { buildCaf, sandboxCafPublicKey } from "../../src/sandbox/folios-caf.ts";
import { fixturePath } from "../support/fixtures.ts";
import { independentlyVerifies as verifiesWith } from "../support/xmldsig.ts";
import { schemaErrors } from "../support/xsd.ts";

const COMPANY = "76192083-9";

/** The printed content of a lone signed DTE, read as the pdf and escpos operations read it. */
function printedOf(xml: string) {
  const parsed = parseXml(xml);
  const documento = childElements(parsed.root).find((c) => ["Documento", "Liquidacion", "Exportaciones"].includes(localName(c.name)));
  return printedDocument(parsed, documento as XmlElement);
}
const NOW = new Date("2026-11-20T13:00:00Z");
const sandboxKey = sandboxCafPublicKey();
const cafKeys = new Map<string, RsaPublicKey>([...SII_CAF_KEYS, [sandboxKey.idk, sandboxKey]]);
const cafs = new Map<number, string>();
let signer: SigningCredential;

beforeAll(async () => {
  const cert = SANDBOX_TAXPAYER_CERTS["11111111-1"];
  signer = await parseCertificateCredential({ "cert-data": cert.certPem, "pkey-data": cert.keyPem }, NOW);
});

async function cafFor(tipo: number, options: { rut?: string; fecha?: string } = {}): Promise<string> {
  const key = tipo;
  if (!options.rut && !options.fecha && cafs.has(key)) return cafs.get(key) as string;
  const caf = await buildCaf({
    rut: options.rut ?? COMPANY,
    razonSocial: "COMERCIAL SANDBOX SPA",
    tipo,
    desde: 1,
    hasta: 500,
    fecha: options.fecha ?? "2026-11-01",
  });
  if (!options.rut && !options.fecha) cafs.set(key, caf);
  return caf;
}

const emisor = EXAMPLE_ISSUER;
const receptor = EXAMPLE_RECEIVER;

/** A plausible document of each type. */
function sample(tipo: number, folio = 1): Node {
  const base: Node = {
    Encabezado: { IdDoc: { TipoDTE: tipo, Folio: folio }, Emisor: { ...emisor }, Receptor: { ...receptor } },
    Detalle: [{ NmbItem: "Señal & 'cable' <RJ45>", QtyItem: 3, PrcItem: 1190 }],
  };
  const encabezado = base.Encabezado as Node;
  if ([56, 61, 111, 112].includes(tipo))
    base.Referencia = [
      { TpoDocRef: tipo === 56 || tipo === 61 ? 33 : 110, FolioRef: 7, FchRef: "2026-11-02", CodRef: 1, RazonRef: "Anula documento" },
    ];
  if (tipo === 52) {
    // A sale's guía with its transfer data (required from 2026-11-01).
    (encabezado.IdDoc as Node).IndTraslado = 1;
    encabezado.Transporte = structuredClone(EXAMPLE_TRANSPORT);
    (base.Detalle as Node[])[0] = { NmbItem: "Señal & 'cable' <RJ45>", QtyItem: 3, UnmdItem: "UN", PrcItem: 1190 };
  }
  if (tipo === 43) {
    // A liquidación-factura: each line names the sale document it settles, the consignee's commission is taken off.
    (base.Detalle as Node[])[0] = { TpoDocLiq: "33", NmbItem: "Señal & 'cable' <RJ45>", QtyItem: 3, PrcItem: 1190 };
    base.Comisiones = [{ TipoMovim: "C", Glosa: "Comisión de venta", TasaComision: 10 }];
  }
  if (tipo >= 110) {
    encabezado.Receptor = {
      RUTRecep: "55555555-5",
      RznSocRecep: "Importadora del Norte LLC",
      GiroRecep: "Importaciones",
      DirRecep: "5th Avenue 100",
      Extranjero: { Nacionalidad: "225" },
    };
    encabezado.Totales = { TpoMoneda: "DOLAR USA" };
    encabezado.Transporte = {
      Aduana: {
        CodModVenta: 1,
        CodClauVenta: 1,
        TotClauVenta: 10.5,
        CodViaTransp: 1,
        CodPtoEmbarque: 906,
        CodPtoDesemb: 262,
        CodPaisRecep: 225,
        CodPaisDestin: 225,
      },
    };
    (encabezado.IdDoc as Node).IndServicio = 3;
    base.Detalle = [{ NmbItem: "Consultoría", QtyItem: 1, PrcItem: 10.5 }];
  }
  return base;
}

async function generate(request: Partial<GenerateRequest> & { documents: Node[] }) {
  const types = [...new Set(request.documents.map((d) => Number(((d.Encabezado as Node)?.IdDoc as Node)?.TipoDTE)))];
  const full: GenerateRequest = {
    cafs: await Promise.all(types.filter(Number.isFinite).map((t) => cafFor(t))),
    resolucion: { fecha: "2014-08-22", numero: 80 },
    normalizar: true,
    ...request,
  };
  return generateDocuments(full, { signer, now: NOW, cafKeys });
}

/** The error a generation fails with, as the API would answer it. */
async function refusal(request: Partial<GenerateRequest> & { documents: Node[] }) {
  const error = await generate(request).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DteError);
  const api = fromDteError(error as DteError);
  expect(api.status).toBe(400);
  return api.init.errors ?? [];
}

/** Our own verifier (the one received documents go through): what fails, empty when all passes. */
async function ourVerdict(bytes: Uint8Array<ArrayBuffer>): Promise<string[]> {
  const report = await inspectEnvelope(bytes);
  const failures = report.problems.map((p) => `${p.path}: ${p.message}`);
  if (report.firma && !report.firma.valido) failures.push(`envelope: ${report.firma.motivo}`);
  for (const doc of report.documentos) {
    const stamp = await verifyStamp(report.doc, doc.documento, cafKeys);
    for (const [name, check] of Object.entries({ firma: doc.firma, ...stamp }))
      if (!check?.valido) failures.push(`${doc.id} ${name}: ${check?.motivo ?? "missing"}`);
  }
  return failures;
}

/** xml-crypto's verdict on the signature whose Reference points at `uri`, with the test's certificate. */
const independentlyVerifies = (xml: string, uri: string) => verifiesWith(xml, uri, signer.certificateBase64);

const PRINT = { papel: "carta", cedible: true, copias: 1, resolucion: null, oficina_sii: "PROVIDENCIA", logo: null } as const;
const ALL_TYPES = [33, 34, 39, 41, 43, 46, 52, 56, 61, 110, 111, 112];

describe("every document type", () => {
  it.each(ALL_TYPES)("type %i: signed DTE and envelope, valid for the SII's schema, verified independently, printed", async (tipo) => {
    const out = await generate({ documents: [sample(tipo, 3), sample(tipo, 4)] });
    const boleta = tipo === 39 || tipo === 41;
    expect(out.sobre).toBe(boleta ? "EnvioBOLETA" : "EnvioDTE");
    expect(out.documentos.map((d) => [d.tipo, d.folio])).toEqual([
      [tipo, 3],
      [tipo, 4],
    ]);
    const envelope = base64ToBytes(out.envio_xml);
    const envelopeText = decodeLatin1(envelope);
    expect(envelopeText.startsWith('<?xml version="1.0" encoding="ISO-8859-1"?>')).toBe(true);
    if (tipo < 110) expect(envelopeText).toContain("Señal &amp; &apos;cable&apos; &lt;RJ45&gt;");

    expect(await ourVerdict(envelope)).toEqual([]);
    // An independent XMLDSig implementation: the envelope's and each DTE's signature.
    expect(independentlyVerifies(envelopeText, "#SetDoc")).toBe(true);
    for (const doc of out.documentos) {
      const dte = decodeLatin1(base64ToBytes(doc.dte_xml));
      expect(independentlyVerifies(dte, `#T${tipo}F${doc.folio}`)).toBe(true);
      // The TED: FRMT over the DD's ISO-8859-1 bytes with the CAF's public key (node:crypto, not our code).
      const dd = /<DD>[\s\S]*<\/DD>/.exec(doc.ted)?.[0] as string;
      const publicKey = /<RSAPUBK>([\s\S]*?)<\/RSAPUBK>/.exec(await cafFor(tipo))?.[1] as string;
      const frmt = /<FRMT algoritmo="SHA1withRSA">([^<]+)<\/FRMT>/.exec(doc.ted)?.[1] as string;
      expect(createVerify("RSA-SHA1").update(Buffer.from(dd, "latin1")).verify(publicKey, frmt, "base64")).toBe(true);
      expect(dte).toContain(doc.ted);
    }

    // Printed: the PDF and the receipt read the signed DTE back; the receipt stores the TED's bytes unchanged.
    const signed = decodeLatin1(base64ToBytes(out.documentos[0]?.dte_xml as string));
    const printed = printedOf(signed);
    expect([printed.tipo, printed.folio, printed.nombre_tipo]).toEqual([tipo, 3, DOCUMENT_NAMES[tipo]]);
    expect(Buffer.from(printed.ted ?? []).equals(Buffer.from(out.documentos[0]?.ted as string, "latin1"))).toBe(true);
    const pdf = await pdfDocument([printed], PRINT);
    expect(decodeLatin1(pdf.subarray(0, 8))).toBe("%PDF-1.4");
    const receipt = Buffer.from(escposReceipt(printed, { papel: "80mm", codepage: "WPC1252" }));
    expect(receipt.includes(Buffer.from(out.documentos[0]?.ted as string, "latin1"))).toBe(true);

    expect(await schemaErrors(envelope, boleta ? "EnvioBOLETA_v11.xsd" : "EnvioDTE_v10.xsd")).toEqual([]);
    if (!boleta) expect(await schemaErrors(base64ToBytes(out.documentos[0]?.dte_xml as string), "DTE_v10.xsd")).toEqual([]);
  });

  it("type 43 (liquidación-factura): commissions' IVA and totals computed, signed, valid, printed with its commissions; also signed as given", async () => {
    const liquidacion: Node = {
      Encabezado: {
        IdDoc: { TipoDTE: 43, Folio: 1, FchEmis: "2026-11-20" },
        Emisor: { ...emisor },
        Receptor: { ...receptor },
      },
      Detalle: [
        { TpoDocLiq: "33", NmbItem: "Venta por cuenta de terceros", QtyItem: 1, PrcItem: 100_000 },
        { TpoDocLiq: "33", NmbItem: "Venta exenta por cuenta de terceros", QtyItem: 1, PrcItem: 10_000, IndExe: 1 },
      ],
      Comisiones: [
        { TipoMovim: "C", Glosa: "Comisión de venta", TasaComision: 5 },
        { TipoMovim: "O", Glosa: "Flete", ValComNeto: 0, ValComExe: 2_000 },
      ],
    };
    const out = await generate({ documents: [liquidacion] });
    const envelope = base64ToBytes(out.envio_xml);
    const text = decodeLatin1(envelope);
    expect(text).toContain('<Liquidacion ID="T43F1">');
    // 5% of the net sold is 5 000, its IVA 950; the total is what the consignor is owed: 100 000 + 10 000 + 19 000 − 7 950.
    expect(text).toContain(
      "<Comisiones><ValComNeto>5000</ValComNeto><ValComExe>2000</ValComExe><ValComIVA>950</ValComIVA></Comisiones><MntTotal>121050</MntTotal>",
    );
    expect(text).toContain(
      "<Comisiones><NroLinCom>1</NroLinCom><TipoMovim>C</TipoMovim><Glosa>Comisión de venta</Glosa><TasaComision>5</TasaComision><ValComNeto>5000</ValComNeto><ValComExe>0</ValComExe><ValComIVA>950</ValComIVA></Comisiones>",
    );
    expect(await ourVerdict(envelope)).toEqual([]);
    expect(independentlyVerifies(text, "#SetDoc")).toBe(true);
    expect(await schemaErrors(envelope, "EnvioDTE_v10.xsd")).toEqual([]);
    const signed = decodeLatin1(base64ToBytes(out.documentos[0]?.dte_xml as string));
    const printed = printedOf(signed);
    expect([printed.nombre_tipo, printed.totales.total, printed.totales.comisiones, printed.comisiones.length]).toEqual([
      DOCUMENT_NAMES[43],
      121_050,
      7_950,
      2,
    ]);
    const receipt = Buffer.from(escposReceipt(printed, { papel: "80mm", codepage: "WPC1252" })).toString("latin1");
    expect(receipt).toContain("Comisión 5%: Comisión de venta (IVA $ 950)");
    // Taken off alike in the list and in the totals: `- $ 5.950`, never `$ -5.950`.
    expect(receipt).toContain("- $ 5.950");
    expect(receipt).toMatch(/Comisiones y otros cargos +- \$ 7\.950/);
    expect(receipt).not.toContain("$ -");
    expect(decodeLatin1((await pdfDocument([printed], PRINT)).subarray(0, 8))).toBe("%PDF-1.4");

    // Taken as given, its totals are signed as they come.
    const asGiven: Node = structuredClone(liquidacion);
    (asGiven.Encabezado as Node).Totales = {
      MntNeto: 100_000,
      MntExe: 10_000,
      TasaIVA: 19,
      IVA: 19_000,
      Comisiones: { ValComNeto: 5_000, ValComExe: 2_000, ValComIVA: 950 },
      MntTotal: 121_050,
    };
    asGiven.Detalle = [
      { NroLinDet: 1, TpoDocLiq: "33", NmbItem: "Venta por cuenta de terceros", QtyItem: 1, PrcItem: 100_000, MontoItem: 100_000 },
      { NroLinDet: 2, TpoDocLiq: "33", NmbItem: "Venta exenta", IndExe: 1, QtyItem: 1, PrcItem: 10_000, MontoItem: 10_000 },
    ];
    asGiven.Comisiones = [
      { NroLinCom: 1, TipoMovim: "C", Glosa: "Comisión de venta", TasaComision: 5, ValComNeto: 5_000, ValComExe: 0, ValComIVA: 950 },
      { NroLinCom: 2, TipoMovim: "O", Glosa: "Flete", ValComNeto: 0, ValComExe: 2_000 },
    ];
    const given = await generate({ documents: [asGiven], normalizar: false });
    expect(await schemaErrors(base64ToBytes(given.envio_xml), "EnvioDTE_v10.xsd")).toEqual([]);
    expect(await ourVerdict(base64ToBytes(given.envio_xml))).toEqual([]);
  });

  it("a tampered document fails both verifiers", async () => {
    const out = await generate({ documents: [sample(33, 9)] });
    const text = decodeLatin1(base64ToBytes(out.envio_xml)).replace("<QtyItem>3</QtyItem>", "<QtyItem>4</QtyItem>");
    expect(independentlyVerifies(text, "#SetDoc")).toBe(false);
    expect(independentlyVerifies(text, "#T33F9")).toBe(false);
    expect(await ourVerdict(encodeLatin1(text))).not.toEqual([]);
  });

  it("the schema check is real: a document with its elements out of order is refused", async () => {
    const out = await generate({ documents: [sample(33, 10)] });
    const swapped = decodeLatin1(base64ToBytes(out.documentos[0]?.dte_xml as string)).replace(
      /(<Folio>10<\/Folio>)(<FchEmis>[^<]+<\/FchEmis>)/,
      "$2$1",
    );
    expect((await schemaErrors(encodeLatin1(swapped), "DTE_v10.xsd")).join("\n")).toMatch(/FchEmis/);
  });
});

const references = JSON.parse(readFileSync(fixturePath("normalization", "cases.json"), "utf8")) as { case: string; document: Node }[];
describe("the reference cases", () => {
  it.each(references.map((r) => [r.case, r.document] as const))("%s generates, verifies and validates", async (_name, document) => {
    const input = structuredClone(document);
    const encabezado = input.Encabezado as Node;
    // The cases' issuer is put in our sandbox company, so our CAFs fit.
    (encabezado.Emisor as Node).RUTEmisor = COMPANY;
    (encabezado.IdDoc as Node).Folio = 1;
    delete (encabezado.IdDoc as Node).FchEmis;
    const out = await generate({ documents: [input] });
    const envelope = base64ToBytes(out.envio_xml);
    expect(await ourVerdict(envelope)).toEqual([]);
    expect(await schemaErrors(envelope, out.sobre === "EnvioBOLETA" ? "EnvioBOLETA_v11.xsd" : "EnvioDTE_v10.xsd")).toEqual([]);
  });
});

describe("refusals name the field", () => {
  it("a folio outside the CAF's range, another issuer's CAF, a type with no CAF", async () => {
    expect(await refusal({ documents: [sample(33, 501)] })).toEqual([
      { path: "dte.Encabezado.IdDoc.Folio", location: "body", message: "501 is outside the CAF's range 1–500" },
    ]);
    expect(await refusal({ documents: [sample(33)], cafs: [await cafFor(33, { rut: "77777777-7" })] })).toEqual([
      expect.objectContaining({ path: "dte.Encabezado.Emisor.RUTEmisor", message: expect.stringContaining("granted to 77777777-7") }),
    ]);
    expect(await refusal({ documents: [sample(33)], cafs: [await cafFor(34)] })).toEqual([
      expect.objectContaining({ path: "caf", message: expect.stringContaining("has no CAF for type 33") }),
    ]);
  });

  it("an expired CAF (six months for type 33), while a guía's CAF of the same age still serves", async () => {
    const old = await cafFor(33, { fecha: "2026-05-19" });
    expect(await refusal({ documents: [sample(33)], cafs: [old] })).toEqual([
      expect.objectContaining({ path: "caf", message: expect.stringMatching(/^expired on 2026-11-19/) }),
    ]);
    const out = await generate({ documents: [sample(52)], cafs: [await cafFor(52, { fecha: "2025-01-01" })] });
    expect(out.documentos).toHaveLength(1);
  });

  it("a CAF not signed by a trusted key, altered, without its private key, or not a CAF", async () => {
    const caf = await cafFor(33);
    const altered = caf.replace("<H>500</H>", "<H>900</H>");
    expect(await refusal({ documents: [sample(33)], cafs: [altered] })).toEqual([
      expect.objectContaining({ path: "caf.FRMA", message: expect.stringContaining("not authentic") }),
    ]);
    const otherIdk = caf.replace("<IDK>900</IDK>", "<IDK>901</IDK>");
    expect(await refusal({ documents: [sample(33)], cafs: [otherIdk] })).toEqual([expect.objectContaining({ path: "caf.DA.IDK" })]);
    const noKey = caf.replace(/<RSASK>[\s\S]*<\/RSASK>/, "");
    expect(await refusal({ documents: [sample(33)], cafs: [noKey] })).toEqual([expect.objectContaining({ path: "caf.RSASK" })]);
    const otherKey = caf.replace(/<RSASK>[\s\S]*<\/RSASK>/, /<RSASK>[\s\S]*<\/RSASK>/.exec(await cafFor(34))?.[0] as string);
    expect(await refusal({ documents: [sample(33)], cafs: [otherKey] })).toEqual([
      expect.objectContaining({ path: "caf.RSASK", message: "is not the private key of the DA's RSAPK" }),
    ]);
    expect(await refusal({ documents: [sample(33)], cafs: ["not a caf"] })).toEqual([expect.objectContaining({ path: "caf" })]);
    expect(await refusal({ documents: [sample(33)], cafs: ["<!DOCTYPE x [<!ENTITY a 'b'>]><AUTORIZACION/>"] })).toEqual([
      expect.objectContaining({ path: "caf", message: expect.stringContaining("DOCTYPE") }),
    ]);
  });

  it("reads a CAF given as base64 of its ISO-8859-1 bytes, accents in RS included", async () => {
    const caf = await buildCaf({ rut: COMPANY, razonSocial: "COMPAÑÍA SANDBOX", tipo: 33, desde: 1, hasta: 10, fecha: "2026-11-01" });
    const out = await generate({ documents: [sample(33, 2)], cafs: [Buffer.from(caf, "latin1").toString("base64")] });
    expect(out.documentos[0]?.ted).toContain("<RS>COMPAÑÍA SANDBOX</RS>");
    expect(await ourVerdict(base64ToBytes(out.envio_xml))).toEqual([]);
  });

  it("elements the schema has no place for, values that are objects, and missing fields without normalizing", async () => {
    const doc = sample(33);
    (doc.Encabezado as Node).Emisor = { ...emisor, Colour: "red" };
    (doc.Detalle as Node[])[0] = { NmbItem: { nested: true }, QtyItem: 1, PrcItem: 1 };
    const errors = await refusal({ documents: [doc], normalizar: false });
    expect(errors.map((e) => e.path)).toEqual(expect.arrayContaining(["dte.Encabezado.Totales.MntTotal", "dte.Encabezado.IdDoc.FchEmis"]));
    const normalized = await refusal({ documents: [doc] });
    expect(normalized.map((e) => e.path)).toEqual(expect.arrayContaining(["dte.Encabezado.Emisor.Colour", "dte.Detalle.NmbItem"]));
  });

  it("taken as given, a wrong RUT check digit or a text over the schema's length is still refused", async () => {
    const doc = {
      ...sample(33),
      Encabezado: {
        IdDoc: { TipoDTE: 33, Folio: 1, FchEmis: "2026-11-20" },
        Emisor: { ...emisor, RznSoc: "x".repeat(101) },
        Receptor: { ...receptor, RUTRecep: "60803000-1" },
        Totales: { MntTotal: 1 },
      },
    };
    const errors = await refusal({ documents: [doc], normalizar: false });
    expect(errors.map((e) => e.path).sort()).toEqual(["dte.Encabezado.Emisor.RznSoc", "dte.Encabezado.Receptor.RUTRecep"]);
  });

  it("lists every document's problems in one answer", async () => {
    const bad = (folio: number) => ({
      ...sample(33, folio),
      Encabezado: { ...(sample(33, folio).Encabezado as Node), Receptor: { ...receptor, RUTRecep: "60803000-1" } },
    });
    const errors = await refusal({ documents: [bad(1), sample(34, 2), bad(3)] });
    expect(errors.map((e) => e.path)).toEqual(
      expect.arrayContaining(["dte[0].Encabezado.Receptor.RUTRecep", "dte[2].Encabezado.Receptor.RUTRecep"]),
    );
  });

  it("repeated folios, several issuers, boletas mixed with facturas", async () => {
    const twice = await refusal({ documents: [sample(33, 5), sample(33, 5)] });
    expect(twice).toEqual([
      expect.objectContaining({
        path: "dte[1].Encabezado.IdDoc.Folio",
        message: expect.stringContaining("repeats type 33 folio 5 of dte[0]"),
      }),
    ]);
    const mixed = await refusal({ documents: [sample(33, 6), sample(39, 6)] });
    expect(mixed).toEqual([expect.objectContaining({ path: "dte", message: expect.stringContaining("mixes boletas") })]);
  });
});

describe("exempt documents carry no IVA", () => {
  /** The PDF's drawing operators, each compressed content stream inflated. */
  const pdfOperators = (pdf: Uint8Array) => {
    const raw = Buffer.from(pdf).toString("latin1");
    return raw.replace(/\/Filter \/FlateDecode \/Length (\d+) >>\nstream\n/g, (head, length: string, offset: number) => {
      const start = offset + head.length;
      return `${head}${inflateSync(Buffer.from(raw.slice(start, start + Number(length)), "latin1")).toString("latin1")}\n`;
    });
  };

  it("a factura exenta (34) without IndExe is signed with exempt lines, MntExe and no IVA, valid, and printed so", async () => {
    const document: Node = {
      Encabezado: { IdDoc: { TipoDTE: 34, Folio: 11 }, Emisor: { ...emisor }, Receptor: { ...receptor } },
      Detalle: [{ NmbItem: "Asesoría", QtyItem: 2, PrcItem: 5000 }],
    };
    const out = await generate({ documents: [document] });
    const bytes = base64ToBytes(out.documentos[0]?.dte_xml as string);
    const dte = decodeLatin1(bytes);
    expect(dte).toContain("<IndExe>1</IndExe>");
    expect(dte).toMatch(/<Totales><MntExe>10000<\/MntExe><MntTotal>10000<\/MntTotal><\/Totales>/);
    for (const tag of ["<MntNeto>", "<TasaIVA>", "<IVA>"]) expect(dte).not.toContain(tag);
    expect(out.documentos[0]?.warnings).toContain("Detalle[0].IndExe = 1");
    expect(await schemaErrors(bytes, "DTE_v10.xsd")).toEqual([]);
    expect(await schemaErrors(base64ToBytes(out.envio_xml), "EnvioDTE_v10.xsd")).toEqual([]);
    expect(await ourVerdict(base64ToBytes(out.envio_xml))).toEqual([]);

    const printed = printedOf(dte);
    expect(printed.totales).toMatchObject({ neto: null, exento: 10000, iva: null, tasa_iva: null, comisiones: null, total: 10000 });
    const pdf = pdfOperators(await pdfDocument([printed], PRINT));
    expect(pdf).toContain("(Exento) Tj");
    expect(pdf).toContain("(10.000) Tj");
    expect(pdf).not.toMatch(/\(IVA 19%\) Tj|\(Neto\) Tj/);
    const receipt = Buffer.from(escposReceipt(printed, { papel: "80mm", codepage: "WPC1252" })).toString("latin1");
    expect(receipt).toMatch(/Exento +\$ 10\.000/);
    expect(receipt).toMatch(/TOTAL +\$ 10\.000/);
    expect(receipt).not.toMatch(/IVA 19%|Neto +\$/);
  });
});

describe("boletas fit their own schema", () => {
  it("the issuer's names become RznSocEmisor/GiroEmisor and fields boletas lack are removed, each with a warning", async () => {
    const out = await generate({ documents: [sample(39, 8)] });
    const dte = decodeLatin1(base64ToBytes(out.documentos[0]?.dte_xml as string));
    expect(dte).toContain("<RznSocEmisor>Comercial Sandbox SpA</RznSocEmisor><GiroEmisor>Comercio</GiroEmisor>");
    expect(dte).not.toContain("<Acteco>");
    expect(out.documentos[0]?.warnings).toEqual(
      expect.arrayContaining([
        "Encabezado.Emisor.RznSoc written as RznSocEmisor (the boleta schema's name)",
        "Encabezado.Emisor.Acteco removed (boletas have no Acteco)",
        "Encabezado.Receptor.GiroRecep removed (boletas have no GiroRecep)",
      ]),
    );
  });
});
