// Checks every XMLDSig signature of a received document the way the SII's own documents and
// other software's need (docs/dte-engine.md §3.5, the "verifier ladder"): the referenced
// element is canonicalized in context, exclusively, without namespaces, and with the SiiDte
// namespace restored, and any of those may match the digest; SignedInfo in context or
// exclusively. The certificate's key must verify; a signature that only RSAKeyValue verifies
// (the SII's 2003 example) passes but says so.
import { base64ToBytes, bytesToBase64, bytesToBase64Url } from "../../lib/encoding.ts";
import { readCertificate } from "../certificate.ts";
import { childElements, findChild, localName, textContent, type XmlDocument, type XmlElement } from "../xml/parse.ts";
import { type C14nOptions, canonicalize, declarations } from "./c14n.ts";

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
  firmante: { rut: string | null; nombre: string; emisor: string; desde: string; hasta: string } | null;
}

interface Located {
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
function* walk(element: XmlElement, ancestors: XmlElement[] = []): Generator<Located> {
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

/** Checks each signature of the document (in document order). */
export async function verifySignatures(doc: XmlDocument): Promise<SignatureCheck[]> {
  const all = [...walk(doc.root)];
  const byId = new Map<string, Located>();
  for (const located of all) {
    const id = located.element.attributes.find((a) => a.name === "ID" || a.name === "Id")?.value;
    if (id !== undefined && !byId.has(id)) byId.set(id, located);
  }
  const results: SignatureCheck[] = [];
  for (const signature of all.filter(isSignature)) results.push(await checkSignature(signature, byId, doc.root));
  return results;
}

async function checkSignature(signature: Located, byId: Map<string, Located>, root: XmlElement): Promise<SignatureCheck> {
  const signedInfo = findChild(signature.element, "SignedInfo");
  const reference = signedInfo && findChild(signedInfo, "Reference");
  const uri = reference?.attributes.find((a) => a.name === "URI")?.value ?? "";
  const fail = (motivo: string, extra: Partial<SignatureCheck> = {}): SignatureCheck => ({
    referencia: uri,
    valido: false,
    motivo,
    variante: null,
    firmante: null,
    ...extra,
  });
  if (!signedInfo || !reference) return fail("the signature has no SignedInfo/Reference");

  const target = uri === "" ? { element: root, ancestors: [] } : uri.startsWith("#") ? byId.get(uri.slice(1)) : undefined;
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
  for (const [name, options] of variants) {
    if ((await sha1Base64(canonicalize(target.element, options))) === expected) {
      variante = name;
      break;
    }
  }

  // The key: the certificate's; RSAKeyValue only as a reported fallback.
  const keyInfo = findChild(signature.element, "KeyInfo");
  const certificateText = descendantText(keyInfo, "X509Data", "X509Certificate");
  const modulus = descendantText(keyInfo, "KeyValue", "RSAKeyValue", "Modulus");
  const exponent = descendantText(keyInfo, "KeyValue", "RSAKeyValue", "Exponent");
  if (!certificateText) return fail("the signature carries no X509Certificate");
  let read: ReturnType<typeof readCertificate>;
  try {
    read = readCertificate(base64ToBytes(certificateText));
  } catch {
    read = { ok: false, problem: "not-x509" };
  }
  if (!read.ok)
    return fail(read.problem === "not-rsa" ? "the signer's certificate is not an RSA certificate" : "the X509Certificate cannot be read");
  const cert = read.certificate;
  const firmante = {
    rut: cert.rut,
    nombre: cert.subjectName,
    emisor: cert.issuerName,
    desde: cert.notBefore.toISOString(),
    hasta: cert.notAfter.toISOString(),
  };
  if (!variante) return fail("the digest does not match the signed element: the document was changed after signing", { firmante });

  const signatureValue = descendantText(signature.element, "SignatureValue") ?? "";
  let signatureBytes: Uint8Array<ArrayBuffer>;
  try {
    signatureBytes = base64ToBytes(signatureValue);
  } catch {
    return fail("the SignatureValue is not base64", { firmante, variante });
  }
  const signedInfoScope = namespaceScope([...signature.ancestors, signature.element]);
  const signedTexts = [
    canonicalize(signedInfo, { mode: "inclusive", inherited: signedInfoScope }),
    canonicalize(signedInfo, { mode: "exclusive", inherited: signedInfoScope }),
  ];
  if (await verifies(await rsaKey(cert.modulus, cert.exponent), signatureBytes, signedTexts)) {
    return { referencia: uri, valido: true, motivo: null, variante, firmante };
  }
  const sameKey = modulus !== null && bytesToBase64(cert.modulus) === modulus;
  if (modulus && exponent && !sameKey) {
    const keyValue = await rsaKey(base64ToBytes(modulus), base64ToBytes(exponent));
    if (await verifies(keyValue, signatureBytes, signedTexts)) {
      return {
        referencia: uri,
        valido: true,
        motivo: "signed by the RSAKeyValue key, which is not the key of the X509Certificate that accompanies it",
        variante,
        firmante,
      };
    }
  }
  return fail("the signature value does not verify with the signer's key", { firmante, variante });
}
