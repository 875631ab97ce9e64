// Checks an XMLDSig signature of a received document the way the SII's own documents and other
// software's need (docs/dte-engine.md §3.5, the "verifier ladder"): the referenced element is
// canonicalized in context, exclusively, without namespaces, and with the SiiDte namespace
// restored, and any of those may match the digest; SignedInfo in context or exclusively. What a
// signature covers is exactly one element: a Reference to an ID that two elements carry is
// refused (signature wrapping), and the check returns the element it verified so the caller can
// require it to be the very node it reports on. The key that verifies must be the certificate's:
// a certificate beside an RSAKeyValue of another key does not say who signed.

import { type RsaCertificate, readCertificate } from "../../certificates/certificate.ts";
import { base64ToBytes, bytesToBase64, bytesToBase64Url, concatBytes } from "../../lib/encoding.ts";
import { KEPT_TEXT_CHARS, remembered, rememberedFor } from "../../lib/remembered.ts";
import { yielder } from "../../lib/yielder.ts";
import { childElements, findChild, localName, textContent, type XmlDocument, type XmlElement } from "../xml/parse.ts";
import { type C14nOptions, canonicalize, canonicalPiecesAsync, declarations } from "./c14n.ts";

const DSIG_NS = "http://www.w3.org/2000/09/xmldsig#";
export const SII_DTE_NS = "http://www.sii.cl/SiiDte";
const ENVELOPED = "http://www.w3.org/2000/09/xmldsig#enveloped-signature";

export interface SignatureCheck {
  /** The Reference URI (`#F33T1`, `#SetDoc`, or "" for the whole document). */
  referencia: string;
  valido: boolean;
  /** Why it failed, or a note on how it passed; null for a plain pass. */
  motivo: string | null;
  /** Which canonical form matched the digest. */
  variante: "inclusive" | "exclusive" | "sin_namespaces" | "namespace_sii" | null;
  /** The signer's certificate, when readable. */
  firmante: Firmante | null;
  /** The element whose digest was checked (null when none was found): the one the signature covers. */
  cubre: XmlElement | null;
}

export interface Firmante {
  rut: string | null;
  nombre: string;
  emisor: string;
  desde: string;
  hasta: string;
  /** The certificate's DER, for the trust check. */
  der: Uint8Array<ArrayBuffer>;
}

export interface Located {
  element: XmlElement;
  /** Ancestors from the root down to the parent. */
  ancestors: XmlElement[];
}

const utf8 = new TextEncoder();

function namespaceScope(ancestors: XmlElement[]): Map<string, string> {
  const scope = new Map<string, string>();
  for (const ancestor of ancestors) for (const [prefix, uri] of declarations(ancestor)) scope.set(prefix, uri);
  return scope;
}

/** Every element in document order with its ancestors. */
export function* walk(element: XmlElement, ancestors: XmlElement[] = []): Generator<Located> {
  yield { element, ancestors };
  const path = [...ancestors, element];
  for (const child of childElements(element)) yield* walk(child, path);
}

/** The text at `path` with all whitespace removed (base64 values), or null when absent. */
function descendantText(element: XmlElement | undefined, ...path: string[]): string | null {
  const found = findChild(element, ...path);
  return found ? textContent(found).replace(/\s+/g, "") : null;
}

async function sha1Base64(text: string): Promise<string> {
  return bytesToBase64(new Uint8Array(await crypto.subtle.digest("SHA-1", utf8.encode(text))));
}

/** Characters of canonical text encoded between two pauses. */
const ENCODE_PIECE = 256 * 1024;

/** `sha1Base64(pieces.join(""))`, the text encoded a batch of pieces at a time (a piece is whole markup or text, never half a character). */
async function sha1Base64OfPieces(pieces: readonly string[], pause: () => Promise<void>): Promise<string> {
  const encoded: Uint8Array[] = [];
  let batch: string[] = [];
  let size = 0;
  for (const piece of pieces) {
    batch.push(piece);
    size += piece.length;
    if (size >= ENCODE_PIECE) {
      encoded.push(utf8.encode(batch.join("")));
      batch = [];
      size = 0;
      await pause();
    }
  }
  encoded.push(utf8.encode(batch.join("")));
  return bytesToBase64(new Uint8Array(await crypto.subtle.digest("SHA-1", concatBytes(encoded))));
}

function rsaKey(modulus: Uint8Array, exponent: Uint8Array): Promise<CryptoKey> {
  return crypto.subtle.importKey(
    "jwk",
    { kty: "RSA", n: bytesToBase64Url(modulus), e: bytesToBase64Url(exponent), ext: true },
    { name: "RSASSA-PKCS1-v1_5", hash: "SHA-1" },
    false,
    ["verify"],
  );
}

async function verifies(key: CryptoKey, signature: Uint8Array<ArrayBuffer>, texts: string[]): Promise<boolean> {
  for (const text of texts) if (await crypto.subtle.verify("RSASSA-PKCS1-v1_5", key, signature, utf8.encode(text))) return true;
  return false;
}

function isSignature(located: Located): boolean {
  const { element, ancestors } = located;
  if (localName(element.name) !== "Signature") return false;
  const prefix = element.name.includes(":") ? element.name.slice(0, element.name.indexOf(":")) : "";
  const scope = namespaceScope([...ancestors, element]);
  return scope.get(prefix) === DSIG_NS;
}

/** Whether base64 `text` holds the same unsigned integer as `bytes` (leading zero bytes aside). */
function sameUnsigned(bytes: Uint8Array, text: string): boolean {
  let other: Uint8Array;
  try {
    other = base64ToBytes(text);
  } catch {
    return false;
  }
  const strip = (b: Uint8Array) => b.subarray(b.findIndex((x) => x !== 0) >>> 0);
  return bytesToBase64(strip(bytes)) === bytesToBase64(strip(other));
}

/** Every element carrying an `ID` (or `Id`) attribute, by its value: more than one under a value is a finding. */
export type IdIndex = ReadonlyMap<string, readonly Located[]>;

export function indexIds(root: XmlElement): IdIndex {
  const byId = new Map<string, Located[]>();
  for (const located of walk(root)) addId(byId, located);
  return byId;
}

/** The same index as `indexIds`, with `pause` every 1 000 elements (a 2 000-document envelope has ~100 000). */
export async function indexIdsAsync(root: XmlElement, pause: () => Promise<void>): Promise<IdIndex> {
  const byId = new Map<string, Located[]>();
  let count = 0;
  for (const located of walk(root)) {
    addId(byId, located);
    if (++count % 1000 === 0) await pause();
  }
  return byId;
}

function addId(byId: Map<string, Located[]>, located: Located): void {
  const id = located.element.attributes.find((a) => a.name === "ID" || a.name === "Id")?.value;
  if (id === undefined) return;
  const list = byId.get(id);
  if (list) list.push(located);
  else byId.set(id, [located]);
}

/** Checks each signature of the document (in document order). */
export async function verifySignatures(doc: XmlDocument): Promise<SignatureCheck[]> {
  const ids = indexIds(doc.root);
  const results: SignatureCheck[] = [];
  for (const signature of walk(doc.root)) if (isSignature(signature)) results.push(await checkSignature(signature, ids, doc.root));
  return results;
}

/** The SII's signature schema (xmldsignature_v10.xsd): SignedInfo, SignatureValue, KeyInfo, nothing else (no Object). */
const SIGNATURE_PARTS = ["SignedInfo", "SignatureValue", "KeyInfo"];

/** The base64 text of every X509Certificate in the KeyInfo's X509Data, in order. */
function x509Certificates(keyInfo: XmlElement | undefined): string[] {
  const data = keyInfo ? childElements(keyInfo).filter((c) => localName(c.name) === "X509Data") : [];
  return data.flatMap((d) =>
    childElements(d)
      .filter((c) => localName(c.name) === "X509Certificate")
      .map((c) => textContent(c).replace(/\s+/g, "")),
  );
}

/** The certificate a KeyInfo's text is (the same text, the same reading: an envelope's documents share their signer's). */
const readCertificateText = remembered(
  64,
  (text: string): ReturnType<typeof readCertificate> => {
    try {
      return readCertificate(base64ToBytes(text));
    } catch {
      return { ok: false, problem: "not-x509" };
    }
  },
  (text) => text.length <= KEPT_TEXT_CHARS,
);

/** A read certificate's key, imported once. */
const certificateKey = rememberedFor((cert: RsaCertificate) => rsaKey(cert.modulus, cert.exponent));

/**
 * The signer among the certificates a KeyInfo carries (a chain may come CA first): the one whose key
 * the RSAKeyValue names, else the one whose key verifies the signature, else the first.
 */
async function signerCertificate(
  certificates: RsaCertificate[],
  modulus: string | null,
  signature: Uint8Array<ArrayBuffer> | null,
  signedTexts: string[],
): Promise<RsaCertificate> {
  const first = certificates[0] as RsaCertificate;
  if (certificates.length === 1) return first;
  const named = modulus === null ? undefined : certificates.find((c) => sameUnsigned(c.modulus, modulus));
  if (named) return named;
  for (const candidate of signature ? certificates : []) {
    if (await verifies(await certificateKey(candidate), signature as Uint8Array<ArrayBuffer>, signedTexts)) return candidate;
  }
  return first;
}

/** Signed parts larger than this (characters of source) are canonicalized in slices. */
const LARGE_SIGNED_PART = 256 * 1024;

/** Checks one signature (found as `signature`, with its ancestors) of the document whose IDs are `ids`. */
export async function checkSignature(signature: Located, ids: IdIndex, root: XmlElement): Promise<SignatureCheck> {
  const signedInfo = findChild(signature.element, "SignedInfo");
  const references = signedInfo ? childElements(signedInfo).filter((c) => localName(c.name) === "Reference") : [];
  const reference = references[0];
  const uri = reference?.attributes.find((a) => a.name === "URI")?.value ?? "";
  const fail = (motivo: string, extra: Partial<SignatureCheck> = {}): SignatureCheck => ({
    referencia: uri,
    valido: false,
    motivo,
    variante: null,
    firmante: null,
    cubre: null,
    ...extra,
  });
  if (!signedInfo || !reference) return fail("the signature has no SignedInfo/Reference");
  if (references.length > 1) return fail(`the signature has ${references.length} References; the SII's signatures cover one element`);
  const extra = childElements(signature.element).find((c) => !SIGNATURE_PARTS.includes(localName(c.name)));
  if (extra) {
    return fail(
      `the signature holds <${extra.name}>, which the SII's signature schema does not allow (SignedInfo, SignatureValue and KeyInfo only)`,
    );
  }

  const candidates = uri === "" ? [{ element: root, ancestors: [] }] : uri.startsWith("#") ? (ids.get(uri.slice(1)) ?? []) : [];
  if (candidates.length > 1) {
    return fail(`${candidates.length} elements carry the ID ${uri.slice(1)}: a signature must cover exactly one (signature wrapping)`);
  }
  const target = candidates[0];
  if (!target) return fail(`the signature refers to ${uri}, which is not in the document`);
  const transforms = reference && findChild(reference, "Transforms");
  const transformList = transforms ? childElements(transforms).map((t) => t.attributes.find((a) => a.name === "Algorithm")?.value) : [];
  const inside = signature.ancestors.includes(target.element) || target.element === signature.element;
  const omit = inside && (transformList.includes(ENVELOPED) || transformList.length === 0 || uri === "") ? signature.element : undefined;

  // The digest: the first canonical form that matches it.
  const expected = descendantText(reference, "DigestValue");
  const inherited = namespaceScope(target.ancestors);
  const variants: [SignatureCheck["variante"], C14nOptions][] = [
    ["inclusive", { mode: "inclusive", inherited, omit }],
    ["exclusive", { mode: "exclusive", inherited, omit }],
    ["sin_namespaces", { mode: "no-namespaces", omit }],
    ["namespace_sii", { mode: "inclusive", inherited: new Map([...inherited, ["", SII_DTE_NS]]), omit }],
  ];
  let variante: SignatureCheck["variante"] = null;
  // An envelope's signature covers its whole SetDTE: written in slices that yield (a document's is small).
  const large = target.element.end - target.element.start > LARGE_SIGNED_PART;
  const digest = async (options: C14nOptions) => {
    if (!large) return sha1Base64(canonicalize(target.element, options));
    const pause = yielder(5, 4);
    return sha1Base64OfPieces(await canonicalPiecesAsync(target.element, options, pause), pause);
  };
  for (const [name, options] of variants) {
    if ((await digest(options)) === expected) {
      variante = name;
      break;
    }
  }

  // The key: the certificate's; RSAKeyValue only as a reported fallback.
  const keyInfo = findChild(signature.element, "KeyInfo");
  const certificateTexts = x509Certificates(keyInfo);
  const modulus = descendantText(keyInfo, "KeyValue", "RSAKeyValue", "Modulus");
  const exponent = descendantText(keyInfo, "KeyValue", "RSAKeyValue", "Exponent");
  if (certificateTexts.length === 0) return fail("the signature carries no X509Certificate");
  const reads = certificateTexts.map(readCertificateText);
  const readable = reads.flatMap((r) => (r.ok ? [r.certificate] : []));
  const first = reads[0] as ReturnType<typeof readCertificate>;
  if (!first.ok && readable.length === 0)
    return fail(first.problem === "not-rsa" ? "the signer's certificate is not an RSA certificate" : "the X509Certificate cannot be read");
  const signatureValue = descendantText(signature.element, "SignatureValue") ?? "";
  let signatureBytes: Uint8Array<ArrayBuffer> | null;
  try {
    signatureBytes = base64ToBytes(signatureValue);
  } catch {
    signatureBytes = null;
  }

  const signedInfoScope = namespaceScope([...signature.ancestors, signature.element]);
  const signedTexts = [
    canonicalize(signedInfo, { mode: "inclusive", inherited: signedInfoScope }),
    canonicalize(signedInfo, { mode: "exclusive", inherited: signedInfoScope }),
  ];
  const cert = await signerCertificate(readable, modulus, signatureBytes, signedTexts);
  const firmante: Firmante = {
    rut: cert.rut,
    nombre: cert.subjectName,
    emisor: cert.issuerName,
    desde: cert.notBefore.toISOString(),
    hasta: cert.notAfter.toISOString(),
    der: cert.der,
  };
  if (!variante) return fail("the digest does not match the signed element: the document was changed after signing", { firmante });
  const cubre = target.element;
  if (!signatureBytes) return fail("the SignatureValue is not base64", { firmante, variante });
  // A KeyValue beside the certificate must be the certificate's key: two keys in one KeyInfo leave
  // it open which one signed, and only the certificate names a signer.
  if (modulus !== null && !sameUnsigned(cert.modulus, modulus)) {
    const keyValueSigned =
      exponent !== null &&
      (await (async () => {
        try {
          return await verifies(await rsaKey(base64ToBytes(modulus), base64ToBytes(exponent)), signatureBytes, signedTexts);
        } catch {
          return false;
        }
      })());
    return fail(
      keyValueSigned
        ? "signed by the RSAKeyValue key, which is not the key of the X509Certificate beside it: the certificate does not identify the signer"
        : "the KeyInfo carries an RSAKeyValue that is not the key of its X509Certificate",
      { firmante, variante, cubre },
    );
  }
  if (await verifies(await certificateKey(cert), signatureBytes, signedTexts)) {
    return { referencia: uri, valido: true, motivo: null, variante, firmante, cubre };
  }
  return fail("the signature value does not verify with the signer's key", { firmante, variante, cubre });
}
