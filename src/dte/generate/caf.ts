// A CAF file (the SII's folio authorization, `AUTORIZACION`: CAF {DA, FRMA}, RSASK, RSAPUBK) read
// and checked before anything is stamped with it (docs/dte-engine.md §2.3): the SII's signature
// over the DA verifies with the key of its IDK, the private key matches the DA's public key, and
// the folio, issuer, type and age suit the document. Everything is read from the parsed tree: the
// one CAF, its one DA and FRMA, the SII's signature checked over that DA node's own text; a CAF
// holding a comment, a processing instruction or a second DA, FRMA or key is refused, since a
// reader and the signature check could then each see another one. Pure: the trusted keys come from
// the caller.

import { readPrivateKey } from "../../certificates/private-key.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import { base64ToBytes, bytesToHex } from "../../lib/encoding.ts";
import { decodeLatin1 } from "../../lib/latin1.ts";
import type { FieldProblem } from "../normalize/sanitize.ts";
import { canonicalize } from "../verify/c14n.ts";
import { flattenedSource, type RsaPublicKey, verifyRsaSha1 } from "../verify/timbre.ts";
import { unsafeXmlReason } from "../xml/guard.ts";
import {
  childText,
  decodeXmlBytes,
  localName,
  markupInside,
  onlyChild,
  parseXml,
  textContent,
  type XmlDocument,
  type XmlElement,
  XmlParseError,
} from "../xml/parse.ts";

export interface Caf {
  /** Issuer RUT, type, folio range and authorization date (`FA`, YYYY-MM-DD) of the DA. */
  re: string;
  td: number;
  desde: number;
  hasta: number;
  fa: string;
  idk: string;
  /** `<CAF version="1.0">…</CAF>` as the file has it, whitespace between tags removed: what the TED carries. */
  element: string;
  /** The same element in canonical form (C14N), for the digest of the documents that carry it. */
  canonical: string;
  /** The range's private key (RSASK), for the TED's FRMT. */
  signingKey: CryptoKey;
}

/** Types whose CAFs expire six months after their authorization (docs/dte-engine.md §2.3). */
const EXPIRING_TYPES = new Set([33, 43, 46, 56, 61]);

export class CafError extends Error {
  readonly problem: FieldProblem;
  constructor(problem: FieldProblem) {
    super(`${problem.path} ${problem.message}`);
    this.problem = problem;
  }
}

/**
 * The CAF's text: raw XML, or base64 of the file's bytes. Files with a declaration are read by it;
 * the SII's often have none while being ISO-8859-1 (§2.1), so undeclared bytes are UTF-8 only when
 * they are valid UTF-8.
 */
function cafText(input: string, path: string): string {
  const trimmed = input.trim();
  if (trimmed.startsWith("<")) return trimmed;
  let bytes: Uint8Array;
  try {
    bytes = base64ToBytes(trimmed.replace(/\s+/g, ""));
  } catch {
    throw new CafError({ path, message: "is neither CAF XML nor base64 of a CAF file" });
  }
  if (/^(\xef\xbb\xbf)?<\?xml[^>]*encoding/.test(decodeLatin1(bytes.subarray(0, 100)))) {
    try {
      return decodeXmlBytes(bytes);
    } catch (error) {
      throw new CafError({ path, message: `cannot be read: ${(error as Error).message}` });
    }
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return decodeLatin1(bytes);
  }
}

const unsignedHex = (base64: string) => bytesToHex(base64ToBytes(base64.replace(/\s+/g, ""))).replace(/^0+/, "");

/**
 * Per isolate: CAFs already read and authenticated, by the SHA-256 of their text, with the key that
 * authenticated each. A client sends the same CAF with every batch of its range, and reading it
 * (parsing, the SII's signature, the private key's import) cost each request as much as signing a
 * few documents. Failures are not kept: they are read, and reported, again.
 */
const cafCache = new Map<string, { caf: Caf; key: RsaPublicKey }>();
const CAF_CACHE_LIMIT = 50;

const sameKey = (a: RsaPublicKey, b: RsaPublicKey | undefined) =>
  b !== undefined && bytesToHex(a.modulus) === bytesToHex(b.modulus) && bytesToHex(a.exponent) === bytesToHex(b.exponent);

/** Reads and authenticates one CAF file; `path` names it in errors (e.g. `caf[1]`). */
export async function readCaf(input: string, path: string, trustedKeys: ReadonlyMap<string, RsaPublicKey>): Promise<Caf> {
  const id = await sha256Hex(input);
  const cached = cafCache.get(id);
  // Taken from the cache only while the key that authenticated it is still trusted for its IDK.
  if (cached && sameKey(cached.key, trustedKeys.get(cached.caf.idk))) {
    cafCache.delete(id);
    cafCache.set(id, cached);
    return cached.caf;
  }
  const { caf, key } = await authenticCaf(input, path, trustedKeys);
  cafCache.set(id, { caf, key });
  if (cafCache.size > CAF_CACHE_LIMIT) cafCache.delete(cafCache.keys().next().value ?? "");
  return caf;
}

async function authenticCaf(
  input: string,
  path: string,
  trustedKeys: ReadonlyMap<string, RsaPublicKey>,
): Promise<{ caf: Caf; key: RsaPublicKey }> {
  const fail = (message: string, at = path): never => {
    throw new CafError({ path: at, message });
  };
  const text = cafText(input, path);
  const unsafe = unsafeXmlReason(text);
  if (unsafe) fail(`is refused: ${unsafe}`);
  let doc: XmlDocument;
  try {
    doc = parseXml(text);
  } catch (error) {
    if (!(error instanceof XmlParseError)) throw error;
    return fail(`is not well-formed XML: ${error.message}`);
  }
  const root = doc.root;
  if (localName(root.name) !== "AUTORIZACION")
    fail(`must be the whole CAF file the SII gives (<AUTORIZACION> with the private key), not <${root.name}>`);
  const markup = markupInside(root);
  if (markup) fail(`holds a ${markup.type === "comment" ? "comment" : "processing instruction"}; a CAF from the SII has none`);
  const one = (parent: XmlElement, name: string, at: string): XmlElement => {
    const found = onlyChild(parent, name);
    return typeof found === "string" ? fail(found, at) : found;
  };
  const cafNode = one(root, "CAF", path);
  const da = one(cafNode, "DA", `${path}.DA`);
  const frmaNode = one(cafNode, "FRMA", `${path}.FRMA`);
  const rsaskNode =
    onlyChild(root, "RSASK") === "has no RSASK"
      ? fail("has no private key (RSASK): give the whole file as the SII delivered it", `${path}.RSASK`)
      : one(root, "RSASK", `${path}.RSASK`);
  for (const name of ["RE", "TD", "FA", "IDK", "RNG", "RSAPK"]) one(da, name, `${path}.DA.${name}`);
  const field = (name: string) => childText(da, name).trim() || fail(`has no DA/${name}`, `${path}.DA.${name}`);
  const caf = {
    re: field("RE").toUpperCase(),
    td: Number(field("TD")),
    desde: Number(childText(da, "RNG", "D")),
    hasta: Number(childText(da, "RNG", "H")),
    fa: field("FA"),
    idk: field("IDK"),
  };
  if (!(caf.desde > 0 && caf.hasta >= caf.desde)) fail("has no valid folio range (DA/RNG)", `${path}.DA.RNG`);

  const key = trustedKeys.get(caf.idk);
  if (!key)
    fail(`was signed with IDK ${caf.idk}, which is not a CAF-signing key of the SII (100 certification, 300 production)`, `${path}.DA.IDK`);
  if (!(await verifyRsaSha1(key as RsaPublicKey, textContent(frmaNode), [flattenedSource(doc, da)])))
    fail(
      `is not authentic: its FRMA does not verify with the SII's key ${caf.idk} (the file was altered or is not from the SII)`,
      `${path}.FRMA`,
    );

  const rsask =
    textContent(rsaskNode).trim() || fail("has no private key (RSASK): give the whole file as the SII delivered it", `${path}.RSASK`);
  let pkcs8: Uint8Array<ArrayBuffer>;
  try {
    const read = readPrivateKey(rsask, undefined);
    if (read.modulusHex.replace(/^0+/, "") !== unsignedHex(childText(da, "RSAPK", "M")))
      fail("is not the private key of the DA's RSAPK", `${path}.RSASK`);
    pkcs8 = read.pkcs8;
  } catch (error) {
    if (error instanceof CafError) throw error;
    return fail("is not a readable RSA private key", `${path}.RSASK`);
  }
  const signingKey = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-1" }, false, ["sign"]);
  const element = flattenedSource(doc, cafNode);
  const read = { ...caf, element, canonical: canonicalize(parseXml(element).root, { mode: "inclusive" }), signingKey };
  // Shared by every request that gives the same file.
  return { caf: Object.freeze(read), key: key as RsaPublicKey };
}

/** The last date `cafExpiry` computed, and for which `fa`: a batch asks it of the same CAF for each document. */
let lastExpiry = { fa: "", expiry: "" };

/** Six calendar months after `fa` (YYYY-MM-DD), clamped to the month's end. */
export function cafExpiry(fa: string): string {
  if (lastExpiry.fa === fa) return lastExpiry.expiry;
  const [year, month, day] = fa.split("-").map(Number) as [number, number, number];
  const target = new Date(Date.UTC(year, month - 1 + 6, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(day, lastDay));
  const expiry = target.toISOString().slice(0, 10);
  lastExpiry = { fa, expiry };
  return expiry;
}

/**
 * The last day a CAF of type `td` authorized on `fa` may stamp documents; null for the types whose
 * CAFs do not expire (docs/dte-engine.md §2.3: only 33, 43, 46, 56 and 61 do).
 */
export function cafVence(td: number, fa: string): string | null {
  return EXPIRING_TYPES.has(td) ? cafExpiry(fa) : null;
}

/**
 * Why this CAF (already chosen by the document's type) cannot stamp this document, each problem
 * naming the field; empty when it can.
 */
export function cafProblems(caf: Caf, cafPath: string, doc: { folio: number; emisor: string; today: string }, at: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (caf.re !== doc.emisor.toUpperCase())
    problems.push({ path: `${at}.Encabezado.Emisor.RUTEmisor`, message: `is ${doc.emisor}, but the CAF was granted to ${caf.re}` });
  if (!(doc.folio >= caf.desde && doc.folio <= caf.hasta))
    problems.push({ path: `${at}.Encabezado.IdDoc.Folio`, message: `${doc.folio} is outside the CAF's range ${caf.desde}–${caf.hasta}` });
  if (EXPIRING_TYPES.has(caf.td) && doc.today > cafExpiry(caf.fa))
    problems.push({
      path: cafPath,
      message: `expired on ${cafExpiry(caf.fa)} (CAFs of type ${caf.td} last six months from their date ${caf.fa}); request a new one`,
    });
  return problems;
}
