// A signed EnvioDTE or EnvioBOLETA for tests of the submission path, built independently of the DTE engine's
// generator: the documents are minimal (no TED), signed the way the SII's profile says.

import { createSign } from "node:crypto";
import { ENVELOPED, sha1Base64, signatureElement, signedInfo, type XmlSigner } from "../../src/dte/sign/xmldsig.ts";
import { canonicalize } from "../../src/dte/verify/c14n.ts";
import { childElements, parseXml } from "../../src/dte/xml/parse.ts";
import { encodeLatin1 } from "../../src/lib/latin1.ts";

const SII = "http://www.sii.cl/SiiDte";
const XSI = "http://www.w3.org/2001/XMLSchema-instance";

export interface TestDocument {
  tipo: number;
  folio: number;
  receptor: string;
  total: number;
  /** A CAF file (as the sandbox grants them) to stamp the document with a TED. */
  caf?: string;
  /** A Referencia line's RazonRef (certification cases are named there). */
  razonRef?: string;
  /** The document's dates, Chile's wall clock (defaults: 2026-11-20, stamped 09:59:00, signed 10:00:00). */
  fchEmis?: string;
  tsted?: string;
  tmstFirma?: string;
  /** XML written where the schema puts it: after FchEmis, after RznSoc, as Transporte, inside the line before MontoItem. */
  xml?: { idDoc?: string; emisor?: string; transporte?: string; detalle?: string };
}

/** What signing needs of a credential (a parsed `auth.cert`, or a test certificate and its key). */
export type TestSigner = XmlSigner & { rut: string };

/** The TED over the document's data, signed with the CAF's private key (node:crypto reads its PKCS#1 PEM). */
function stamp(emisor: string, doc: TestDocument & { caf: string }): string {
  const cafElement = /<CAF[\s>][\s\S]*?<\/CAF>/.exec(doc.caf)?.[0]?.replace(/>\s+</g, "><") ?? "";
  const privateKey = /<RSASK>([\s\S]*?)<\/RSASK>/.exec(doc.caf)?.[1]?.trim() ?? "";
  const dd =
    `<DD><RE>${emisor}</RE><TD>${doc.tipo}</TD><F>${doc.folio}</F><FE>${doc.fchEmis ?? "2026-11-20"}</FE><RR>${doc.receptor}</RR>` +
    `<RSR>Compañía Receptora</RSR><MNT>${doc.total}</MNT><IT1>Servicio de prueba</IT1>${cafElement}<TSTED>${doc.tsted ?? "2026-11-20T09:59:00"}</TSTED></DD>`;
  const frmt = createSign("RSA-SHA1").update(Buffer.from(dd, "latin1")).sign(privateKey, "base64");
  return `<TED version="1.0">${dd}<FRMT algoritmo="SHA1withRSA">${frmt}</FRMT></TED>`;
}

export async function signedDte(credential: TestSigner, emisor: string, doc: TestDocument): Promise<string> {
  const id = `T${doc.tipo}F${doc.folio}`;
  const documento =
    `<Documento ID="${id}"><Encabezado><IdDoc><TipoDTE>${doc.tipo}</TipoDTE><Folio>${doc.folio}</Folio><FchEmis>${doc.fchEmis ?? "2026-11-20"}</FchEmis>${doc.xml?.idDoc ?? ""}</IdDoc>` +
    `<Emisor><RUTEmisor>${emisor}</RUTEmisor><RznSoc>Comercial Sandbox SpA</RznSoc>${doc.xml?.emisor ?? ""}</Emisor>` +
    `<Receptor><RUTRecep>${doc.receptor}</RUTRecep><RznSocRecep>Compañía Receptora</RznSocRecep></Receptor>` +
    `${doc.xml?.transporte ?? ""}<Totales><MntTotal>${doc.total}</MntTotal></Totales></Encabezado>` +
    `<Detalle><NroLinDet>1</NroLinDet><NmbItem>Servicio de prueba</NmbItem>${doc.xml?.detalle ?? ""}<MontoItem>${doc.total}</MontoItem></Detalle>` +
    (doc.razonRef
      ? `<Referencia><NroLinRef>1</NroLinRef><TpoDocRef>SET</TpoDocRef><FolioRef>0</FolioRef><FchRef>2026-11-20</FchRef><RazonRef>${doc.razonRef}</RazonRef></Referencia>`
      : "") +
    `${doc.caf ? stamp(emisor, { ...doc, caf: doc.caf }) : ""}<TmstFirma>${doc.tmstFirma ?? "2026-11-20T10:00:00"}</TmstFirma></Documento>`;
  const unsigned = `<DTE xmlns="${SII}" version="1.0">${documento}</DTE>`;
  const apex = childElements(parseXml(unsigned).root)[0]!;
  const digest = await sha1Base64(canonicalize(apex, { mode: "inclusive", inherited: new Map([["", SII]]) }));
  const signature = await signatureElement(credential, signedInfo(`#${id}`, digest));
  return unsigned.replace("</DTE>", `${signature}</DTE>`);
}

/** The envelope as ISO-8859-1 bytes; `tamper` edits the text after signing. */
export async function signedEnvelope(
  credential: TestSigner,
  emisor: string,
  docs: TestDocument[],
  options: {
    kind?: "EnvioDTE" | "EnvioBOLETA";
    subtotales?: { tipo: number; cantidad: number }[];
    rutEnvia?: string;
    /** The carátula's TmstFirmaEnv (default 2026-11-20T10:00:01). */
    tmstFirmaEnv?: string;
    /** Edits each signed DTE before the envelope is signed (the envelope's signature stays valid). */
    tamperDocument?: (dte: string, index: number) => string;
    /** Edits the whole signed envelope. */
    tamper?: (xml: string) => string;
  } = {},
): Promise<Uint8Array<ArrayBuffer>> {
  const signed = await Promise.all(docs.map((d) => signedDte(credential, emisor, d)));
  const dtes = signed.map((dte, i) => (options.tamperDocument ? options.tamperDocument(dte, i) : dte));
  const counts =
    options.subtotales ??
    [...new Set(docs.map((d) => d.tipo))].map((tipo) => ({ tipo, cantidad: docs.filter((d) => d.tipo === tipo).length }));
  const caratula =
    `<Caratula version="1.0"><RutEmisor>${emisor}</RutEmisor><RutEnvia>${options.rutEnvia ?? credential.rut}</RutEnvia><RutReceptor>60803000-K</RutReceptor>` +
    `<FchResol>2014-08-22</FchResol><NroResol>80</NroResol><TmstFirmaEnv>${options.tmstFirmaEnv ?? "2026-11-20T10:00:01"}</TmstFirmaEnv>` +
    counts.map((s) => `<SubTotDTE><TpoDTE>${s.tipo}</TpoDTE><NroDTE>${s.cantidad}</NroDTE></SubTotDTE>`).join("") +
    "</Caratula>";
  const kind = options.kind ?? "EnvioDTE";
  const unsigned = `<${kind} xmlns="${SII}" xmlns:xsi="${XSI}" version="1.0"><SetDTE ID="SetDoc">${caratula}${dtes.join("")}</SetDTE></${kind}>`;
  const setDte = childElements(parseXml(unsigned).root)[0]!;
  const inherited = new Map([
    ["", SII],
    ["xsi", XSI],
  ]);
  const digest = await sha1Base64(canonicalize(setDte, { mode: "inclusive", inherited }));
  const signature = await signatureElement(credential, signedInfo("#SetDoc", digest, ENVELOPED, ` xmlns:xsi="${XSI}"`));
  const xml = `<?xml version="1.0" encoding="ISO-8859-1"?>\n${unsigned.replace(`</${kind}>`, `${signature}</${kind}>`)}`;
  return encodeLatin1((options.tamper ?? ((x) => x))(xml));
}
