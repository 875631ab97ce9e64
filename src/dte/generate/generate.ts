// Documents as JSON → signed DTEs and the envelope that carries them to the SII (docs/dte-engine.md
// §1–§3, §5): normalize, fit to the type's schema, check each against its CAF, stamp the
// TED, sign each DTE, then sign the envelope. Everything is checked before anything is signed, and
// every problem is reported at once, naming its field. Pure: no I/O; the caller passes the time,
// the signer and the keys trusted to sign CAFs.
import { callerSignerWarnings } from "../../certificates/signer-profile.ts";
import { santiagoDateTime } from "../../lib/dates.ts";
import { DteError } from "../errors.ts";
import { invalidDocument, type Node, normalizeDte, SUPPORTED_TYPES } from "../normalize/normalize.ts";
import { type FieldProblem, isNode, sanitizeDte } from "../normalize/sanitize.ts";
import { transferRules } from "../normalize/transfer-rules.ts";
import type { XmlSigner } from "../sign/xmldsig.ts";
import { MAX_DOCUMENTS } from "../verify/envelope.ts";
import type { RsaPublicKey } from "../verify/timbre.ts";
import { cafProblems } from "./caf.ts";
import { type CafEntry, cafFor, readCafSet } from "./caf-set.ts";
import { DOCUMENTO_ORDER } from "./schema-order.ts";
import { containerOf, serializeChildren } from "./serialize.ts";
import { canonicalOfOwnText, type SignedDte, signDte, signEnvelopeParts, XML_DECLARATION } from "./sign.ts";
import { stampTed } from "./ted.ts";

export interface GenerateRequest {
  /** Documents as given (one or more). */
  documents: Node[];
  /** CAF files, raw XML or base64: one per document type used, or several ranges of a type. */
  cafs: string[];
  resolucion: { fecha: string; numero: number };
  normalizar: boolean;
  /** RutReceptor of the envelope: the SII by default, the buyer for an exchange. */
  receptorEnvio?: string;
}

export interface GenerateContext {
  signer: XmlSigner & { rut: string };
  now: Date;
  /** Keys trusted to sign CAFs, by IDK. */
  cafKeys: ReadonlyMap<string, RsaPublicKey>;
  /** Lets other requests run between documents (the caller's yielder); none: no pause. */
  pause?: () => Promise<void>;
}

/** A document of the request, as a failure report names it. */
export interface DocumentRef {
  /** Its place in the request's `dte` list (0-based). */
  index: number;
  tipo: number;
  folio: number;
}

/**
 * Signing stopped half-way (a signature the runtime could not make): which documents were signed,
 * which one failed and why; nothing is answered signed.
 */
export class GenerationStopped extends Error {
  readonly signed: DocumentRef[];
  readonly failed: DocumentRef & { reason: string };
  override readonly cause: unknown;
  constructor(signed: DocumentRef[], failed: DocumentRef & { reason: string }, cause: unknown) {
    super(`signing stopped at document ${failed.index} after ${signed.length} were signed: ${failed.reason}`);
    this.signed = signed;
    this.failed = failed;
    this.cause = cause;
  }
}

export interface GeneratedDocument {
  tipo: number;
  folio: number;
  /** The signed DTE, ISO-8859-1 with its declaration, base64. */
  dte_xml: string;
  /** The flattened TED: the PDF417's payload. */
  ted: string;
  warnings: string[];
}

export interface Generated {
  sobre: "EnvioDTE" | "EnvioBOLETA";
  documentos: GeneratedDocument[];
  envio_xml: string;
}

/** The SII, which receives every upload (docs/dte-engine.md §5). */
export const SII_RUT = "60803000-K";
const BOLETAS = new Set([39, 41]);

/** Base64 of ISO-8859-1 text: btoa reads each character as the byte of its code (all are ≤ U+00FF here). */
const latin1Base64 = (text: string) => btoa(text);

/** Characters encoded between two pauses: a multiple of 3, so the pieces' base64 joins into the whole's. */
const BASE64_SLICE = 3 * 2 ** 18;
/**
 * Characters encoded in one call, a multiple of 3 too: a few tens of KB stay in the CPU's caches,
 * while a quarter-megabyte call cost about three times as much per character.
 */
const BASE64_CHUNK = 3 * 2 ** 13;

/**
 * The same for a large text given in parts (an envelope of 2 000 documents is ~10 MB): base64
 * pieces whose concatenation is the whole's, encoded a chunk at a time with a pause after each slice.
 */
async function latin1Base64Parts(parts: readonly string[], pause: () => Promise<void>): Promise<string[]> {
  const pieces: string[] = [];
  let pending = "";
  let sincePause = 0;
  for (const part of parts) {
    pending += part;
    if (pending.length < BASE64_CHUNK) continue;
    const whole = pending.length - (pending.length % 3);
    pieces.push(btoa(pending.slice(0, whole)));
    pending = pending.slice(whole);
    sincePause += whole;
    if (sincePause < BASE64_SLICE) continue;
    sincePause = 0;
    await pause();
  }
  if (pending) pieces.push(btoa(pending));
  return pieces;
}

const child = (parent: Node, key: string): Node => (isNode(parent[key]) ? (parent[key] as Node) : {});

/**
 * Boletas have their own schema (§1.4): issuer names are `RznSocEmisor`/`GiroEmisor`, and fields of
 * the other types' header that it lacks (e.g. `Acteco`, `GiroRecep`) are removed with a warning.
 * Names neither schema knows are left for the serializer to refuse.
 */
function fitBoleta(dte: Node, warnings: string[]): void {
  const encabezado = child(dte, "Encabezado");
  const emisor = child(encabezado, "Emisor");
  for (const [from, to] of [
    ["RznSoc", "RznSocEmisor"],
    ["GiroEmis", "GiroEmisor"],
  ] as const) {
    if (emisor[from] !== undefined && emisor[to] === undefined) {
      emisor[to] = emisor[from];
      delete emisor[from];
      warnings.push(`Encabezado.Emisor.${from} written as ${to} (the boleta schema's name)`);
    }
  }
  const boletaOrder = containerOf(39).order;
  for (const part of ["IdDoc", "Emisor", "Receptor", "Totales"]) {
    const section = child(encabezado, part);
    for (const key of Object.keys(section)) {
      const path = `Encabezado/${part}`;
      if (!boletaOrder[path]?.includes(key) && DOCUMENTO_ORDER[path]?.includes(key)) {
        delete section[key];
        warnings.push(`Encabezado.${part}.${key} removed (boletas have no ${key})`);
      }
    }
  }
}

/** Fields the TED and the envelope need, when the document is taken as given (`normalizar: false`). */
const REQUIRED = [
  ["IdDoc", "TipoDTE"],
  ["IdDoc", "Folio"],
  ["IdDoc", "FchEmis"],
  ["Emisor", "RUTEmisor"],
  ["Receptor", "RUTRecep"],
  ["Totales", "MntTotal"],
] as const;

interface Prepared {
  at: string;
  index: number;
  dte: Node;
  tipo: number;
  folio: number;
  emisor: string;
  body: string;
  warnings: string[];
}

/** Types generated here: every DTE type of DTE_v10.xsd and the boletas, the ones the normalizer knows. */
export const GENERATED_TYPES = [...SUPPORTED_TYPES].sort((a, b) => a - b);

function prepare(
  input: Node,
  index: number,
  at: string,
  request: GenerateRequest,
  today: string,
  problems: FieldProblem[],
): Prepared | null {
  const tipoPath = `${at}.Encabezado.IdDoc.TipoDTE`;
  const given = Number(child(child(input, "Encabezado"), "IdDoc").TipoDTE);
  if (!GENERATED_TYPES.includes(given)) {
    problems.push({ path: tipoPath, message: `must be one of ${GENERATED_TYPES.join(", ")}` });
    return null;
  }
  let dte: Node;
  let warnings: string[] = [];
  if (request.normalizar) {
    try {
      ({ dte, warnings } = normalizeDte(input, today, { at }));
    } catch (error) {
      // Its problems join the others', so one answer lists every document's.
      if (!(error instanceof DteError)) throw error;
      problems.push(...error.errors.map(({ path, message }) => ({ path, message })));
      return null;
    }
  } else {
    dte = structuredClone(input);
    // Taken as given, yet values the SII would refuse (RUT check digits, dates) are still refused here.
    const sanitized = sanitizeDte(structuredClone(input), given).problems;
    // And a guía without its transfer data is not signed either; a bad RUT is named once, by the sanitizer.
    const transfer = transferRules(dte, given, today);
    const named = new Set(sanitized.map((p) => p.path));
    const own = [...sanitized, ...transfer.problems.filter((p) => !named.has(p.path))];
    problems.push(...own.map((p) => ({ path: `${at}.${p.path}`, message: p.message })));
    warnings = transfer.warnings;
  }
  const encabezado = child(dte, "Encabezado");
  const missing = REQUIRED.filter(([part, key]) => child(encabezado, part)[key] === undefined);
  for (const [part, key] of missing) problems.push({ path: `${at}.Encabezado.${part}.${key}`, message: "is required" });
  const tipo = given;
  const folio = Number(child(encabezado, "IdDoc").Folio);
  if (!(Number.isInteger(folio) && folio > 0))
    problems.push({ path: `${at}.Encabezado.IdDoc.Folio`, message: "must be a positive integer" });
  if (missing.length) return null;
  if (BOLETAS.has(tipo)) fitBoleta(dte, warnings);
  const local: FieldProblem[] = [];
  const { order, limits } = containerOf(tipo);
  const body = serializeChildren(dte, order, "", local, limits);
  problems.push(...local.map((p) => ({ path: `${at}.${p.path}`, message: p.message })));
  return { at, index, dte, tipo, folio, emisor: String(child(encabezado, "Emisor").RUTEmisor).toUpperCase(), body, warnings };
}

/** What generation gives, the envelope's base64 in pieces (their concatenation is `envio_xml`). */
export interface GeneratedParts extends Omit<Generated, "envio_xml"> {
  envioBase64: string[];
}

export async function generateDocuments(request: GenerateRequest, context: GenerateContext): Promise<Generated> {
  const { envioBase64, ...generated } = await generateDocumentParts(request, context);
  return { ...generated, envio_xml: envioBase64.join("") };
}

/** The same, the envelope left in pieces for a caller that writes it out as it goes. */
export async function generateDocumentParts(request: GenerateRequest, context: GenerateContext): Promise<GeneratedParts> {
  // Judged before anything is read: a certificate the SII would refuse is a 400 on auth.cert (signer-profile.ts).
  const signerWarnings = callerSignerWarnings(context.signer.certificateBase64);
  const stampTime = santiagoDateTime(context.now).replace(" ", "T");
  // The same instant's date in Chile: one time-zone conversion instead of two (each some tens of µs).
  const today = stampTime.slice(0, 10);
  const problems: FieldProblem[] = [];
  const cafs = await readCafSet(request.cafs, context.cafKeys, problems);
  const cafUnreadable = problems.length > 0;
  const many = request.documents.length > 1;
  const pause = context.pause ?? (async () => {});
  const documents: Prepared[] = [];
  for (const [i, input] of request.documents.entries()) {
    const doc = prepare(input, i, many ? `dte[${i}]` : "dte", request, today, problems);
    if (doc) documents.push(doc);
    await pause();
  }

  const seen = new Map<string, string>();
  for (const doc of documents) {
    const entry = cafFor(cafs, doc.tipo, doc.folio);
    if (entry) problems.push(...cafProblems(entry.caf, entry.path, { folio: doc.folio, emisor: doc.emisor, today }, doc.at));
    // A CAF that could not be read was already reported, and which type it was for is unknown.
    else if (!cafUnreadable)
      problems.push({
        path: "caf",
        message: `has no CAF for type ${doc.tipo} (${doc.at}): give one per document type used (or one per range)`,
      });
    const key = `${doc.tipo}/${doc.folio}`;
    const earlier = seen.get(key);
    if (earlier)
      problems.push({ path: `${doc.at}.Encabezado.IdDoc.Folio`, message: `repeats type ${doc.tipo} folio ${doc.folio} of ${earlier}` });
    seen.set(key, doc.at);
  }
  const issuers = new Set(documents.map((d) => d.emisor));
  if (issuers.size > 1)
    problems.push({
      path: "dte",
      message: `has documents of several issuers (${[...issuers].join(", ")}); an envelope carries one issuer's documents`,
    });
  const boletas = documents.filter((d) => BOLETAS.has(d.tipo)).length;
  if (boletas > 0 && boletas < documents.length)
    problems.push({
      path: "dte",
      message: "mixes boletas (39, 41) with other documents; they travel in different envelopes: generate them separately",
    });
  const sobre = boletas > 0 ? "EnvioBOLETA" : "EnvioDTE";
  if (documents.length > MAX_DOCUMENTS[sobre])
    problems.push({ path: "dte", message: `has ${documents.length} documents; an ${sobre} carries at most ${MAX_DOCUMENTS[sobre]}` });
  if (problems.length) throw invalidDocument(problems, "");
  if (documents.length === 0)
    throw new DteError("invalid_document", "dte holds no documents", [{ path: "dte", location: "body", message: "holds no documents" }]);

  const dtes = await signAll(documents, cafs, stampTime, context, pause);
  const generated: GeneratedDocument[] = documents.map((doc, i) => {
    const { dteXml, ted } = dtes[i] as (typeof dtes)[number];
    return { tipo: doc.tipo, folio: doc.folio, dte_xml: dteXml, ted, warnings: [...doc.warnings, ...signerWarnings] };
  });
  const envelope = await signEnvelopeParts(
    sobre,
    {
      rutEmisor: documents[0]?.emisor as string,
      rutEnvia: context.signer.rut,
      rutReceptor: request.receptorEnvio ?? SII_RUT,
      fchResol: request.resolucion.fecha,
      nroResol: request.resolucion.numero,
      tmstFirmaEnv: stampTime,
    },
    dtes,
    context.signer,
    pause,
  );
  return { sobre, documentos: generated, envioBase64: await latin1Base64Parts([XML_DECLARATION, ...envelope], pause) };
}

/**
 * Stamps and signs each document in turn, pausing between documents: a signature is about a millisecond of CPU (node:crypto signs
 * synchronously), so signing them all at once would hold the thread for seconds at 2 000. A
 * failure stops the work and says what was done.
 */
async function signAll(
  documents: Prepared[],
  cafs: Map<number, CafEntry[]>,
  stampTime: string,
  context: GenerateContext,
  pause: () => Promise<void>,
): Promise<{ tipo: number; signed: SignedDte; ted: string; dteXml: string }[]> {
  const out: { tipo: number; signed: SignedDte; ted: string; dteXml: string }[] = [];
  const ref = (doc: Prepared): DocumentRef => ({ index: doc.index, tipo: doc.tipo, folio: doc.folio });
  for (const [i, doc] of documents.entries()) {
    try {
      const { caf } = cafFor(cafs, doc.tipo, doc.folio) as CafEntry;
      const ted = await stampTed(doc.dte, caf, stampTime);
      const body = { file: doc.body + ted.file, canonical: canonicalOfOwnText(doc.body) + ted.canonical };
      const signed = await signDte(containerOf(doc.tipo).element, `T${doc.tipo}F${doc.folio}`, body, context.signer, stampTime);
      out.push({ tipo: doc.tipo, signed, ted: ted.file, dteXml: latin1Base64(XML_DECLARATION + signed.xml) });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new GenerationStopped(documents.slice(0, i).map(ref), { ...ref(doc), reason }, error);
    }
    await pause();
  }
  return out;
}
