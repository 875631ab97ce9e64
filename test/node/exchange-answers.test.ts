// The answers a DTE's receiver sends the issuer (src/dte/exchange/): a RespuestaDTE with the receipt
// of an envelope or the commercial result of its documents, and an EnvioRecibos under Ley 19.983.
// Each is valid for the SII's schema (xmllint), every signature verifies with an independent
// XMLDSig implementation (xml-crypto) and fails once a signed value is changed, text round-trips
// escaped, and every value a schema would refuse, or past a bound, is an error naming its field.
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { parseCertificateCredential, type SigningCredential } from "../../src/certificates/credentials.ts";
import { DteError } from "../../src/dte/errors.ts";
import { ANSWERED_TYPES, DECLARACION_LEY_19983, ESTADO_DTE, ESTADO_RECEP_DTE, ESTADO_RECEP_ENV } from "../../src/dte/exchange/codes.ts";
import type { DocumentKey } from "../../src/dte/exchange/fields.ts";
import { type EnvioRecibosInput, envioRecibos, type Receipt } from "../../src/dte/exchange/recibos.ts";
import {
  type DocumentResult,
  type ReceivedDocument,
  type ReceivedEnvelope,
  type RespuestaEnvioInput,
  type ResultadoDteInput,
  respuestaEnvio,
  resultadoDte,
} from "../../src/dte/exchange/respuesta.ts";
import { childElements, findChild, localName, parseXml, textContent, type XmlElement } from "../../src/dte/xml/parse.ts";
import { encodeLatin1 } from "../../src/lib/latin1.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { fixturePath } from "../support/fixtures.ts";
import { independentlyVerifies } from "../support/xmldsig.ts";
import { schemaErrors } from "../support/xsd.ts";

const NOW = new Date("2026-11-20T13:00:00Z");
/** NOW in Chile (UTC-3 in November): what every time stamp says. */
const SIGNED_AT = "2026-11-20T10:00:00";
const ISSUER = "76192083-9";
const RECEIVER = "96790240-3";
let signer: SigningCredential;

beforeAll(async () => {
  const cert = SANDBOX_TAXPAYER_CERTS["11111111-1"];
  signer = await parseCertificateCredential({ "cert-data": cert.certPem, "pkey-data": cert.keyPem }, NOW);
});

const verifies = (xml: string, uri: string) => independentlyVerifies(xml, uri, signer.certificateBase64);
const valid = (xml: string, schema: string) => schemaErrors(encodeLatin1(xml), schema);
const children = (element: XmlElement | undefined) => (element ? childElements(element).map((c) => localName(c.name)) : []);
const named = (element: XmlElement, name: string) => childElements(element).filter((c) => localName(c.name) === name);

/** The i-th document of an envelope: every type an answer may name, in turn. */
function key(i: number): DocumentKey {
  return {
    type: ANSWERED_TYPES[i % ANSWERED_TYPES.length] as number,
    folio: i + 1,
    issued: "2026-11-18",
    issuer: ISSUER,
    receiver: RECEIVER,
    total: 1190 * (i + 1),
  };
}
/** A fresh Caratula each time: the cases below change theirs. */
const header = () => ({ responder: RECEIVER, recipient: ISSUER, answerId: 41 });

function envelope(documents: number): ReceivedEnvelope {
  return {
    fileName: "ENVIO_DTE_123.xml",
    receivedAt: "2026-11-19T09:30:00",
    envelopeCode: 7001,
    envelopeId: "SetDoc",
    digest: "2jmj7l5rSw0yVb/vlWAYkK/YBwk=",
    issuer: ISSUER,
    receiver: RECEIVER,
    status: 0,
    documents: Array.from({ length: documents }, (_, i): ReceivedDocument => ({ ...key(i), status: 0 })),
  };
}
const recepcion = (documents: number): RespuestaEnvioInput => ({ header: header(), envelopes: [envelope(documents)] });
const resultados = (documents: number): ResultadoDteInput => ({
  header: header(),
  documents: Array.from({ length: documents }, (_, i): DocumentResult => ({ ...key(i), envelopeCode: 7001, status: 0 })),
});
const recibos = (documents: number): EnvioRecibosInput => ({
  header: { responder: RECEIVER, recipient: ISSUER },
  receipts: Array.from({ length: documents }, (_, i): Receipt => ({ ...key(i), place: "Bodega central" })),
});

/** The fields an answer was refused for, as `path: message`. */
async function refusal(answer: Promise<string>): Promise<string[]> {
  const error = await answer.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DteError);
  return (error as DteError).errors.map((e) => `${e.path}: ${e.message}`);
}

describe("RespuestaDTE: the receipt of an envelope (RecepcionEnvio)", () => {
  it.each([1, 50])("with %i documents: valid for the schema, its signature verified independently", async (n) => {
    const xml = await respuestaEnvio(recepcion(n), signer, NOW);
    expect(xml.startsWith('<?xml version="1.0" encoding="ISO-8859-1"?>\n<RespuestaDTE xmlns="http://www.sii.cl/SiiDte"')).toBe(true);
    expect(await valid(xml, "RespuestaEnvioDTE_v10.xsd")).toEqual([]);
    expect(verifies(xml, "#Resultado41")).toBe(true);

    const { root } = parseXml(xml);
    expect(children(root)).toEqual(["Resultado", "Signature"]);
    const resultado = findChild(root, "Resultado") as XmlElement;
    expect(children(resultado)).toEqual(["Caratula", "RecepcionEnvio"]);
    expect(children(findChild(resultado, "Caratula"))).toEqual(["RutResponde", "RutRecibe", "IdRespuesta", "NroDetalles", "TmstFirmaResp"]);
    expect(textContent(findChild(resultado, "Caratula", "NroDetalles") as XmlElement)).toBe("1");
    expect(textContent(findChild(resultado, "Caratula", "TmstFirmaResp") as XmlElement)).toBe(SIGNED_AT);
    const recepcionEnvio = findChild(resultado, "RecepcionEnvio") as XmlElement;
    expect(textContent(findChild(recepcionEnvio, "NroDTE") as XmlElement)).toBe(String(n));
    expect(textContent(findChild(recepcionEnvio, "RecepEnvGlosa") as XmlElement)).toBe(ESTADO_RECEP_ENV[0]);
    const documents = named(recepcionEnvio, "RecepcionDTE");
    expect(documents).toHaveLength(n);
    expect(children(documents[0])).toEqual([
      "TipoDTE",
      "Folio",
      "FchEmis",
      "RUTEmisor",
      "RUTRecep",
      "MntTotal",
      "EstadoRecepDTE",
      "RecepDTEGlosa",
    ]);
    expect(textContent(findChild(documents[n - 1], "Folio") as XmlElement)).toBe(String(n));
  });

  it("several envelopes, one refused whole with no documents (NroDTE left out), each state and its meaning", async () => {
    const refused: ReceivedEnvelope = { ...envelope(0), envelopeCode: 7002, status: 1, digest: undefined };
    const mixed = envelope(3);
    mixed.documents = mixed.documents.map((d, i) => ({ ...d, status: ([0, 4, 99] as const)[i] ?? 0 }));
    const xml = await respuestaEnvio({ header: header(), envelopes: [mixed, refused] }, signer, NOW);
    expect(await valid(xml, "RespuestaEnvioDTE_v10.xsd")).toEqual([]);
    expect(verifies(xml, "#Resultado41")).toBe(true);
    const resultado = findChild(parseXml(xml).root, "Resultado") as XmlElement;
    expect(textContent(findChild(resultado, "Caratula", "NroDetalles") as XmlElement)).toBe("2");
    const [first, second] = named(resultado, "RecepcionEnvio") as [XmlElement, XmlElement];
    expect(named(first, "RecepcionDTE").map((d) => textContent(findChild(d, "RecepDTEGlosa") as XmlElement))).toEqual([
      "DTE Recibido OK",
      "DTE No Recibido - DTE Repetido",
      "DTE No Recibido - Otros",
    ]);
    expect(children(second)).toEqual([
      "NmbEnvio",
      "FchRecep",
      "CodEnvio",
      "EnvioDTEID",
      "RutEmisor",
      "RutReceptor",
      "EstadoRecepEnv",
      "RecepEnvGlosa",
    ]);
    expect(textContent(findChild(second, "RecepEnvGlosa") as XmlElement)).toBe("Envio Rechazado - Error de Schema");
  });

  it("the reception time given as an instant is written in Chile's time", async () => {
    const input = recepcion(1);
    (input.envelopes[0] as ReceivedEnvelope).receivedAt = new Date("2026-07-01T16:05:09Z");
    const xml = await respuestaEnvio(input, signer, NOW);
    expect(xml).toContain("<FchRecep>2026-07-01T12:05:09</FchRecep>");
  });
});

describe("RespuestaDTE: the commercial result of documents (ResultadoDTE)", () => {
  it.each([1, 50])("with %i documents: valid for the schema, its signature verified independently", async (n) => {
    const input = resultados(n);
    const last = input.documents[n - 1] as DocumentResult;
    Object.assign(last, { status: 2, reasonCode: -1, note: "Mercadería no corresponde" });
    const xml = await resultadoDte(input, signer, NOW);
    expect(await valid(xml, "RespuestaEnvioDTE_v10.xsd")).toEqual([]);
    expect(verifies(xml, "#Resultado41")).toBe(true);

    const resultado = findChild(parseXml(xml).root, "Resultado") as XmlElement;
    expect(textContent(findChild(resultado, "Caratula", "NroDetalles") as XmlElement)).toBe(String(n));
    const documents = named(resultado, "ResultadoDTE");
    expect(documents).toHaveLength(n);
    expect(children(documents[n - 1])).toEqual([
      "TipoDTE",
      "Folio",
      "FchEmis",
      "RUTEmisor",
      "RUTRecep",
      "MntTotal",
      "CodEnvio",
      "EstadoDTE",
      "EstadoDTEGlosa",
      "CodRchDsc",
    ]);
    expect(textContent(findChild(documents[n - 1], "EstadoDTEGlosa") as XmlElement)).toBe("Mercadería no corresponde");
    if (n > 1) expect(textContent(findChild(documents[0], "EstadoDTEGlosa") as XmlElement)).toBe(ESTADO_DTE[0]);
  });

  it("2 000 documents, the most an answer carries, still validate and verify", async () => {
    const xml = await resultadoDte(resultados(2000), signer, NOW);
    expect(await valid(xml, "RespuestaEnvioDTE_v10.xsd")).toEqual([]);
    expect(verifies(xml, "#Resultado41")).toBe(true);
  });
});

describe("EnvioRecibos: the receipt of goods or services (Ley 19.983)", () => {
  it.each([1, 50])("with %i receipts: valid for the schema, each receipt's and the set's signature verified independently", async (n) => {
    const xml = await envioRecibos(recibos(n), signer, NOW);
    expect(xml.startsWith('<?xml version="1.0" encoding="ISO-8859-1"?>\n<EnvioRecibos xmlns="http://www.sii.cl/SiiDte"')).toBe(true);
    expect(await valid(xml, "EnvioRecibos_v10.xsd")).toEqual([]);
    expect(verifies(xml, "#SetRecibos")).toBe(true);
    for (let i = 0; i < n; i++) {
      const { type, folio } = key(i);
      expect(verifies(xml, `#T${type}F${folio}`), `receipt ${i}`).toBe(true);
    }

    const { root } = parseXml(xml);
    expect(children(root)).toEqual(["SetRecibos", "Signature"]);
    const set = findChild(root, "SetRecibos") as XmlElement;
    expect(children(findChild(set, "Caratula"))).toEqual(["RutResponde", "RutRecibe", "TmstFirmaEnv"]);
    const receipts = named(set, "Recibo");
    expect(receipts).toHaveLength(n);
    for (const receipt of receipts) expect(children(receipt)).toEqual(["DocumentoRecibo", "Signature"]);
    const documento = findChild(receipts[0], "DocumentoRecibo") as XmlElement;
    expect(children(documento)).toEqual([
      "TipoDoc",
      "Folio",
      "FchEmis",
      "RUTEmisor",
      "RUTRecep",
      "MntTotal",
      "Recinto",
      "RutFirma",
      "Declaracion",
      "TmstFirmaRecibo",
    ]);
    expect(textContent(findChild(documento, "RutFirma") as XmlElement)).toBe(signer.rut);
    expect(textContent(findChild(documento, "Declaracion") as XmlElement)).toBe(DECLARACION_LEY_19983);
    expect(textContent(findChild(documento, "TmstFirmaRecibo") as XmlElement)).toBe(SIGNED_AT);
  });
});

describe("a value changed after signing", () => {
  it("fails the check of the signature over it (and only that one)", async () => {
    const respuesta = await respuestaEnvio(recepcion(2), signer, NOW);
    expect(verifies(respuesta.replace("<MntTotal>2380</MntTotal>", "<MntTotal>2381</MntTotal>"), "#Resultado41")).toBe(false);
    const resultado = await resultadoDte(resultados(2), signer, NOW);
    expect(verifies(resultado.replace("<EstadoDTE>0</EstadoDTE>", "<EstadoDTE>2</EstadoDTE>"), "#Resultado41")).toBe(false);

    const set = await envioRecibos(recibos(2), signer, NOW);
    const place = set.replace("<Recinto>Bodega central</Recinto>", "<Recinto>Bodega norte</Recinto>");
    expect(verifies(place, "#T33F1")).toBe(false);
    expect(verifies(place, "#SetRecibos")).toBe(false);
    expect(verifies(place, "#T34F2")).toBe(true);
    // The set's carátula is the set's alone: each receipt still verifies.
    const caratula = set.replace(`<RutRecibe>${ISSUER}</RutRecibe>`, "<RutRecibe>11111111-1</RutRecibe>");
    expect(verifies(caratula, "#SetRecibos")).toBe(false);
    expect(verifies(caratula, "#T33F1")).toBe(true);
    // The check itself is sound: the untouched answers verify.
    expect([verifies(respuesta, "#Resultado41"), verifies(resultado, "#Resultado41"), verifies(set, "#SetRecibos")]).toEqual([
      true,
      true,
      true,
    ]);
  });
});

describe("text with XML's special characters and ISO-8859-1 letters", () => {
  const tricky = `Ñuñoa & <Sur> 'B' "C"`;

  it("is written escaped, still validates and verifies, and reads back as given", async () => {
    const envio = recepcion(1);
    const first = envio.envelopes[0] as ReceivedEnvelope;
    Object.assign(first, { fileName: `envío & <${"ñ"}>.xml`, note: tricky, envelopeId: "Set&Doc<1>" });
    Object.assign(first.documents[0] as ReceivedDocument, { status: 3, note: tricky });
    const withContact = {
      ...envio,
      header: { ...header(), contactName: "Peña & Cía", contactPhone: "+56 2 <2345>", contactEmail: "o'brien@ejemplo.cl" },
    };
    const respuesta = await respuestaEnvio(withContact, signer, NOW);
    expect(respuesta).toContain("<RecepEnvGlosa>Ñuñoa &amp; &lt;Sur&gt; &apos;B&apos; &quot;C&quot;</RecepEnvGlosa>");
    expect(await valid(respuesta, "RespuestaEnvioDTE_v10.xsd")).toEqual([]);
    expect(verifies(respuesta, "#Resultado41")).toBe(true);
    const resultado = findChild(parseXml(respuesta).root, "Resultado") as XmlElement;
    const read = (...path: string[]) => textContent(findChild(resultado, ...path) as XmlElement);
    expect(read("RecepcionEnvio", "NmbEnvio")).toBe("envío & <ñ>.xml");
    expect(read("RecepcionEnvio", "EnvioDTEID")).toBe("Set&Doc<1>");
    expect(read("RecepcionEnvio", "RecepEnvGlosa")).toBe(tricky);
    expect(read("RecepcionEnvio", "RecepcionDTE", "RecepDTEGlosa")).toBe(tricky);
    expect([read("Caratula", "NmbContacto"), read("Caratula", "FonoContacto"), read("Caratula", "MailContacto")]).toEqual([
      "Peña & Cía",
      "+56 2 <2345>",
      "o'brien@ejemplo.cl",
    ]);

    const input = resultados(1);
    (input.documents[0] as DocumentResult).note = tricky;
    const result = await resultadoDte(input, signer, NOW);
    expect(await valid(result, "RespuestaEnvioDTE_v10.xsd")).toEqual([]);
    expect(verifies(result, "#Resultado41")).toBe(true);
    expect(textContent(findChild(parseXml(result).root, "Resultado", "ResultadoDTE", "EstadoDTEGlosa") as XmlElement)).toBe(tricky);

    const set = recibos(2);
    (set.receipts[1] as Receipt).place = tricky;
    set.header.contactName = "Peña & Cía";
    const xml = await envioRecibos(set, signer, NOW);
    expect(await valid(xml, "EnvioRecibos_v10.xsd")).toEqual([]);
    expect([verifies(xml, "#T34F2"), verifies(xml, "#SetRecibos")]).toEqual([true, true]);
    const receipts = named(findChild(parseXml(xml).root, "SetRecibos") as XmlElement, "Recibo");
    expect(textContent(findChild(receipts[1], "DocumentoRecibo", "Recinto") as XmlElement)).toBe(tricky);
  });
});

/** One change breaks one field: the only error names it and says why. */
function expectOnly(errors: string[], path: string, message: RegExp) {
  expect(errors, errors.join("\n")).toHaveLength(1);
  expect(errors[0]?.startsWith(`${path}: `), errors[0]).toBe(true);
  expect(errors[0]).toMatch(message);
}

/** A field of a valid input, the value it is given there, and what the error naming it says. */
type Case = [name: string, path: string, value: unknown, message: RegExp];

/** Sets the field at `path` (`envelopes[0].documents[1].status`) of `input`. */
function setAt(input: object, path: string, value: unknown): void {
  const steps = path.split(/\.|\[(\d+)\]/).filter(Boolean);
  const last = steps.pop() as string;
  let target = input as Record<string, unknown>;
  for (const step of steps) target = target[step] as Record<string, unknown>;
  target[last] = value;
}

const NOT_A_NUMBER = new Date(Number.NaN);

/** The key fields every answer's documents share, at `at`. */
const documentCases = (at: string, typeTag: string): Case[] => [
  [`${typeTag} 39 (a boleta)`, `${at}.type`, 39, new RegExp(`one of 33, 34, 46, 52, 56, 61 \\(${typeTag}\\)`)],
  [`${typeTag} 43 (no answer in the schemas)`, `${at}.type`, 43, new RegExp(typeTag)],
  ["Folio 0", `${at}.folio`, 0, /from 1 to 9999999999 \(Folio: FolioType\)/],
  ["Folio of 11 digits", `${at}.folio`, 12_345_678_901, /Folio/],
  ["Folio a fraction", `${at}.folio`, 1.5, /Folio/],
  ["Folio as text", `${at}.folio`, "1", /Folio/],
  ["FchEmis not a date", `${at}.issued`, "18-11-2026", /YYYY-MM-DD \(FchEmis\)/],
  ["FchEmis on 30 February", `${at}.issued`, "2026-02-30", /FchEmis/],
  ["FchEmis outside the SII's range", `${at}.issued`, "1999-12-31", /outside the range/],
  ["RUTEmisor too short", `${at}.issuer`, "1-2", /RUTEmisor/],
  ["RUTRecep a number", `${at}.receiver`, 96790240, /not text \(RUTRecep\)/],
  ["MntTotal negative", `${at}.total`, -1, /MntTotal: MontoType/],
  ["MntTotal past an exact number", `${at}.total`, 2 ** 53, /MntTotal/],
];

const envelope0 = "envelopes[0]";
const respuestaCases: Case[] = [
  ["RutResponde's check digit", "header.responder", "96790240-4", /wrong check digit.*\(RutResponde\)/],
  ["RutRecibe's form", "header.recipient", "76.192.083", /not a valid RUT.*\(RutRecibe\)/],
  ["RutRecibe missing", "header.recipient", undefined, /RutRecibe/],
  ["IdRespuesta of 11 digits", "header.answerId", 10 ** 10, /from 1 to 9999999999 \(IdRespuesta/],
  ["IdRespuesta 0", "header.answerId", 0, /IdRespuesta/],
  ["NmbContacto of 41", "header.contactName", "x".repeat(41), /40 characters \(NmbContacto\)/],
  ["FonoContacto of 41", "header.contactPhone", "1".repeat(41), /40 characters \(FonoContacto\)/],
  ["MailContacto of 81", "header.contactEmail", `${"a".repeat(70)}@ejemplo.cl`, /80 characters \(MailContacto\)/],
  ["no envelopes", "envelopes", [], /at least 1 envelopes/],
  ["envelopes not a list", "envelopes", {}, /must be a list/],
  ["NmbEnvio empty", `${envelope0}.fileName`, "", /required \(NmbEnvio\)/],
  ["NmbEnvio of 81", `${envelope0}.fileName`, "x".repeat(81), /80 characters \(NmbEnvio\)/],
  ["NmbEnvio with a character ISO-8859-1 lacks", `${envelope0}.fileName`, "envío€.xml", /ISO-8859-1 cannot write \(NmbEnvio\)/],
  ["NmbEnvio with a control character", `${envelope0}.fileName`, "a\u0001b", /control characters \(NmbEnvio\)/],
  ["NmbEnvio with a line break", `${envelope0}.fileName`, "a\nb", /control characters/],
  ["FchRecep without seconds", `${envelope0}.receivedAt`, "2026-11-19T09:30", /FchRecep/],
  ["FchRecep with a zone", `${envelope0}.receivedAt`, "2026-11-19T09:30:00Z", /FchRecep/],
  ["FchRecep on 31 February", `${envelope0}.receivedAt`, "2026-02-31T09:30:00", /FchRecep/],
  ["FchRecep at 24:00", `${envelope0}.receivedAt`, "2026-11-19T24:00:00", /FchRecep/],
  ["FchRecep an invalid Date", `${envelope0}.receivedAt`, NOT_A_NUMBER, /YYYY-MM-DDTHH:MM:SS \(FchRecep\)/],
  ["CodEnvio negative", `${envelope0}.envelopeCode`, -3, /CodEnvio/],
  ["EnvioDTEID of 81", `${envelope0}.envelopeId`, "S".repeat(81), /80 characters \(EnvioDTEID\)/],
  ["EnvioDTEID missing", `${envelope0}.envelopeId`, undefined, /required \(EnvioDTEID\)/],
  ["Digest not base64", `${envelope0}.digest`, "not base64!", /base64 \(Digest\)/],
  ["Digest past its bound", `${envelope0}.digest`, "A".repeat(92), /88 characters \(Digest\)/],
  ["RutEmisor of the envelope", `${envelope0}.issuer`, "76192083-K", /\(RutEmisor\)/],
  ["RutReceptor of the envelope", `${envelope0}.receiver`, "", /\(RutReceptor\)/],
  ["EstadoRecepEnv 4", `${envelope0}.status`, 4, /one of 0, 1, 2, 3, 90, 91, 99 \(EstadoRecepEnv\)/],
  ["RecepEnvGlosa of 257", `${envelope0}.note`, "g".repeat(257), /256 characters \(RecepEnvGlosa\)/],
  ["documents not a list", `${envelope0}.documents`, null, /must be a list of documents/],
  ["a document not an object", `${envelope0}.documents[1]`, "33-1", /must be an object/],
  ...documentCases(`${envelope0}.documents[0]`, "TipoDTE"),
  ["EstadoRecepDTE 5", `${envelope0}.documents[0].status`, 5, /one of 0, 1, 2, 3, 4, 99 \(EstadoRecepDTE\)/],
  ["RecepDTEGlosa of 257", `${envelope0}.documents[0].note`, "g".repeat(257), /256 characters \(RecepDTEGlosa\)/],
];

const resultadoCases: Case[] = [
  ["IdRespuesta a fraction", "header.answerId", 1.5, /IdRespuesta/],
  ["no documents", "documents", [], /at least 1 documents/],
  ...documentCases("documents[0]", "TipoDTE"),
  ["CodEnvio of 11 digits", "documents[0].envelopeCode", 10 ** 10, /CodEnvio/],
  ["EstadoDTE 3", "documents[0].status", 3, /one of 0, 1, 2 \(EstadoDTE\)/],
  ["EstadoDTEGlosa of 257", "documents[0].note", "g".repeat(257), /256 characters \(EstadoDTEGlosa\)/],
  ["CodRchDsc positive", "documents[0].reasonCode", 1, /from -999 to -1 \(CodRchDsc/],
  ["CodRchDsc of 4 digits", "documents[0].reasonCode", -1000, /CodRchDsc/],
];

const recibosCases: Case[] = [
  ["RutResponde", "header.responder", "x", /\(RutResponde\)/],
  ["RutRecibe", "header.recipient", "76192083-8", /\(RutRecibe\)/],
  ["MailContacto of 81", "header.contactEmail", "m".repeat(81), /80 characters \(MailContacto\)/],
  ["no receipts", "receipts", [], /at least 1 receipts/],
  ...documentCases("receipts[0]", "TipoDoc"),
  ["Recinto missing", "receipts[0].place", undefined, /required \(Recinto\)/],
  ["Recinto of 81", "receipts[0].place", "r".repeat(81), /80 characters \(Recinto\)/],
];

describe("what a schema would refuse, or past a bound, is an error naming the field", () => {
  it.each(respuestaCases)("RespuestaDTE (RecepcionEnvio): %s", async (_name, path, value, message) => {
    const input = recepcion(2);
    setAt(input, path, value);
    const errors = await refusal(respuestaEnvio(input, signer, NOW));
    expectOnly(errors, path, message);
  });

  it.each(resultadoCases)("RespuestaDTE (ResultadoDTE): %s", async (_name, path, value, message) => {
    const input = resultados(2);
    setAt(input, path, value);
    const errors = await refusal(resultadoDte(input, signer, NOW));
    expectOnly(errors, path, message);
  });

  it.each(recibosCases)("EnvioRecibos: %s", async (_name, path, value, message) => {
    const input = recibos(2);
    setAt(input, path, value);
    const errors = await refusal(envioRecibos(input, signer, NOW));
    expectOnly(errors, path, message);
  });

  it("a type and folio given twice in one set is refused (a DocumentoRecibo's ID is its type and folio)", async () => {
    const input = recibos(7);
    setAt(input, "receipts[6].folio", 1);
    expectOnly(await refusal(envioRecibos(input, signer, NOW)), "receipts[6].folio", /repeats type 33 folio 1 of receipts\[0\]/);
  });

  it("the signer's own RUT is RutFirma: one that is not a RUT is refused", async () => {
    const errors = await refusal(envioRecibos(recibos(1), { ...signer, rut: "signer" }, NOW));
    expect(errors).toEqual([expect.stringMatching(/^signer\.rut: .*RutFirma/)]);
  });

  it("more than 2 000 documents in one answer are refused before any is read or signed", async () => {
    expect(await refusal(resultadoDte(resultados(2001), signer, NOW))).toEqual([
      "documents: has 2001 documents; an answer carries at most 2000",
    ]);
    expect(await refusal(envioRecibos(recibos(2001), signer, NOW))).toEqual([
      "receipts: has 2001 receipts; an answer carries at most 2000",
    ]);
    expect(await refusal(respuestaEnvio(recepcion(2001), signer, NOW))).toEqual([
      "envelopes[0].documents: has 2001 documents; an answer carries at most 2000",
    ]);
    // Spread over envelopes, the bound is the answer's.
    const spread = { header: header(), envelopes: [envelope(1000), envelope(1000), envelope(1)] };
    expect(await refusal(respuestaEnvio(spread, signer, NOW))).toEqual(["envelopes: hold 2001 documents; an answer carries at most 2000"]);
  });

  it("every problem is named at once, and the error's message names the first", async () => {
    const input = recepcion(1);
    input.header.answerId = -1;
    (input.envelopes[0] as ReceivedEnvelope).status = 7 as 0;
    const error = await respuestaEnvio(input, signer, NOW).catch((e: unknown) => e as DteError);
    expect(error).toBeInstanceOf(DteError);
    expect((error as DteError).errors.map((e) => e.path)).toEqual(["header.answerId", "envelopes[0].status"]);
    expect((error as DteError).message).toMatch(/^header\.answerId must be a whole number .* \(and 1 more\)$/);
  });
});

describe("the codes and fixed text are the schemas' own", () => {
  const schema = (name: string) => readFileSync(fixturePath("sii-schemas", name), "latin1");
  /** The enumerations of the element `name` in a schema: each value with its documentation. */
  function enumeration(xsd: string, name: string): Record<string, string> {
    const start = xsd.indexOf(`<xs:element name="${name}"`);
    const end = xsd.indexOf("</xs:element>", start);
    const block = xsd.slice(start, end);
    return Object.fromEntries(
      [...block.matchAll(/<xs:enumeration value="(\d+)">\s*<xs:annotation>\s*<xs:documentation>([^<]*)<\/xs:documentation>/g)].map((m) => [
        m[1],
        m[2],
      ]),
    );
  }

  it("EstadoRecepEnv, EstadoRecepDTE and EstadoDTE: every value RespuestaEnvioDTE_v10.xsd enumerates, with its meaning", () => {
    const xsd = schema("RespuestaEnvioDTE_v10.xsd");
    expect(ESTADO_RECEP_ENV).toEqual(enumeration(xsd, "EstadoRecepEnv"));
    expect(ESTADO_RECEP_DTE).toEqual(enumeration(xsd, "EstadoRecepDTE"));
    expect(ESTADO_DTE).toEqual(enumeration(xsd, "EstadoDTE"));
  });

  it("the types: SiiTypes_v10.xsd's DTEType and DocType; the Declaracion: Recibos_v10.xsd's fixed value", () => {
    const types = schema("SiiTypes_v10.xsd");
    for (const name of ["DTEType", "DocType"]) {
      const start = types.indexOf(`<xs:simpleType name="${name}">`);
      const block = types.slice(start, types.indexOf("</xs:simpleType>", start));
      expect(
        [...block.matchAll(/<xs:enumeration value="(\d+)"/g)].map((m) => Number(m[1])),
        name,
      ).toEqual([...ANSWERED_TYPES]);
    }
    expect(/<xs:element name="Declaracion" fixed="([^"]*)"/.exec(schema("Recibos_v10.xsd"))?.[1]).toBe(DECLARACION_LEY_19983);
  });
});
