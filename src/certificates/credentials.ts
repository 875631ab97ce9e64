// The taxpayer's certificate credential (`auth.cert` in request bodies), as PEM certificate + key or
// as a PFX, turned into what signing and TLS client auth need. Parsing a PFX costs 10-100 ms of CPU
// (its key derivations), so each isolate keeps the parsed credential, keyed by a hash of the input;
// the validity dates are still checked on every call.
import { sha256Hex } from "../lib/crypto.ts";
import { bytesToBase64 } from "../lib/encoding.ts";
import { type CertificateRead, type RsaCertificate, readCertificate } from "./certificate.ts";
import { type CertField, credentialError } from "./credential-error.ts";
import { isUnpaidKdfFee, type KdfFee } from "./kdf-limit.ts";
import { readDerBlocks, toPem } from "./pem.ts";
import { readPfx } from "./pkcs12.ts";
import { type RsaPrivateKey, readPrivateKeyAsync } from "./private-key.ts";

export type CertInput =
  | { "cert-data": string; "pkey-data": string; passphrase?: string }
  | { "pfx-data": string; passphrase: string }
  // The apigateway.cl SDKs' names for a PFX (apigatewaycl/apigateway-api-client-php, src/ApiBase.php).
  | { "file-data": string; "file-pass": string };

export interface SigningCredential {
  /** RSASSA-PKCS1-v1_5 with SHA-1, non-extractable, usages ["sign"]. */
  privateKey: CryptoKey;
  /** The signer's certificate. */
  certificateDer: Uint8Array;
  /** The other certificates that came with it (CA), for TLS client chains. */
  chainDer: Uint8Array[];
  /** The signer's certificate, then the chain, as PEM (TLS client auth). */
  certificatePem: string;
  /** Unencrypted PKCS#8 PEM for the Node TLS client. Memory only: never store or log it. */
  privateKeyPkcs8Pem: string;
  /** The signer's RUT, canonical `12345678-9`. */
  rut: string;
  /** The signer's CN. */
  subjectName: string;
  /** The issuing CA's CN. */
  issuerName: string;
  notBefore: Date;
  notAfter: Date;
  /** RSAKeyValue for XMLDSig: unsigned big-endian, no leading zero byte. */
  modulusBase64: string;
  exponentBase64: string;
  /** DER base64, for XMLDSig X509Certificate. */
  certificateBase64: string;
  /** SHA-256 hex of the certificate DER. */
  fingerprint: string;
}

type Source =
  | { kind: "pem"; cert: string; key: string; passphrase: string | undefined }
  | { kind: "pfx"; pfx: string; passphrase: string | undefined };

const CACHE_LIMIT = 100;
/** Per isolate: input hash → the credential being (or already) parsed. */
const cache = new Map<string, Promise<SigningCredential>>();

export function clearCredentialCache(): void {
  cache.clear();
}

/**
 * The credential of `input`, parsed once per isolate. `pay` takes the fee of its key derivations
 * beyond the free iterations (kdf-limit.ts), paid by the call that parses it: a cached credential
 * costs nothing more.
 */
export async function parseCertificateCredential(input: CertInput, now: Date, pay?: KdfFee): Promise<SigningCredential> {
  const source = sourceOf(input);
  const key = await sha256Hex(JSON.stringify(source));
  let pending = cache.get(key);
  const shared = pending !== undefined;
  if (pending) {
    // Move to the end: the map's order is the eviction order.
    cache.delete(key);
    cache.set(key, pending);
  } else {
    const parsing = buildCredential(source, pay);
    pending = parsing;
    cache.set(key, parsing);
    if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value ?? "");
    // Failures are not kept: the next call parses (and reports) again.
    parsing.catch(() => {
      if (cache.get(key) === parsing) cache.delete(key);
    });
  }
  let credential: SigningCredential;
  try {
    credential = await pending;
  } catch (error) {
    // Another call's parse stopped on that call's own plan: this one parses, and pays, for itself.
    if (shared && isUnpaidKdfFee(error)) return parseCertificateCredential(input, now, pay);
    throw error;
  }
  checkValidity(credential, now, source.kind === "pfx" ? "pfx-data" : "cert-data");
  return credential;
}

/** The input checked at run time too: it comes from a request body. */
function sourceOf(input: unknown): Source {
  const record = typeof input === "object" && input !== null ? (input as Record<string, unknown>) : {};
  const text = (field: CertField) => {
    const value = record[field];
    if (value !== undefined && typeof value !== "string") throw credentialError(field, `auth.cert.${field} must be a string`);
    return value;
  };
  // `file-data` and `file-pass` stand for `pfx-data` and `passphrase`; one name per field.
  const either = (field: CertField, alias: string) => {
    const value = record[alias];
    if (value === undefined) return text(field);
    if (typeof value !== "string") throw credentialError(field, `auth.cert.${alias} must be a string`);
    if (record[field] !== undefined)
      throw credentialError(field, `auth.cert.${alias} is auth.cert.${field} under another name: give only one`);
    return value;
  };
  const passphrase = either("passphrase", "file-pass");
  const pfx = either("pfx-data", "file-data");
  if (pfx !== undefined) return { kind: "pfx", pfx, passphrase };
  const cert = text("cert-data");
  const key = text("pkey-data");
  if (cert === undefined && key === undefined) {
    throw credentialError(null, "auth.cert needs cert-data and pkey-data (PEM), or pfx-data and passphrase (PKCS#12)");
  }
  if (cert === undefined) throw credentialError("cert-data", "auth.cert.cert-data is required with auth.cert.pkey-data");
  if (key === undefined) throw credentialError("pkey-data", "auth.cert.pkey-data is required with auth.cert.cert-data");
  return { kind: "pem", cert, key, passphrase };
}

async function buildCredential(source: Source, pay: KdfFee | undefined): Promise<SigningCredential> {
  if (source.kind === "pfx") {
    const { keys, certificates } = await readPfx(source.pfx, source.passphrase, pay);
    const [key] = keys; // a PFX holds one key in practice
    if (!key) throw credentialError("pfx-data", "auth.cert.pfx-data holds no private key");
    return assemble(key, pairCertificate(key, certificates, "pfx-data"), { key: "pfx-data", cert: "pfx-data" });
  }
  const certificates = readCertificateBlocks(source.cert);
  const key = await readPrivateKeyAsync(source.key, source.passphrase, pay);
  return assemble(key, pairCertificate(key, certificates, "cert-data"), { key: "pkey-data", cert: "cert-data" });
}

/** As for a PFX's entries (pkcs12.ts): each certificate is parsed and compared with the key. */
const MAX_PEM_CERTIFICATES = 64;

function readCertificateBlocks(text: string): Uint8Array<ArrayBuffer>[] {
  const blocks = readDerBlocks(text);
  if (!blocks) throw credentialError("cert-data", "auth.cert.cert-data is not a PEM certificate, nor base64 DER");
  const certificates = blocks.filter((b) => b.label === null || b.label.endsWith("CERTIFICATE"));
  if (certificates.length === 0) {
    const found = blocks.map((b) => b.label).join(", ");
    throw credentialError("cert-data", `auth.cert.cert-data holds no certificate (found: ${found})`);
  }
  if (certificates.length > MAX_PEM_CERTIFICATES) {
    throw credentialError(
      "cert-data",
      `auth.cert.cert-data holds more than ${MAX_PEM_CERTIFICATES} certificates; a certificate and its chain are a few`,
    );
  }
  return certificates.map((b) => b.der);
}

interface Paired {
  signer: RsaCertificate;
  chain: Uint8Array<ArrayBuffer>[];
}

/** The certificate whose public key is the private key's (any order); the rest is the chain. */
function pairCertificate(key: RsaPrivateKey, certificates: Uint8Array<ArrayBuffer>[], field: "cert-data" | "pfx-data"): Paired {
  const reads: CertificateRead[] = certificates.map((der) => readCertificate(der));
  // In cert-data every block must be a certificate; a PFX's extra bags only ride along.
  if (field === "cert-data" && reads.some((r) => !r.ok && r.problem === "not-x509")) {
    throw credentialError("cert-data", "auth.cert.cert-data is not an X.509 certificate");
  }
  const index = reads.findIndex((r) => r.ok && r.certificate.modulusHex === key.modulusHex);
  const match = reads[index];
  if (match?.ok) return { signer: match.certificate, chain: certificates.filter((_, i) => i !== index) };

  const notRsa = reads.find((r): r is Extract<CertificateRead, { problem: "not-rsa" }> => !r.ok && r.problem === "not-rsa");
  if (notRsa && !reads.some((r) => r.ok)) {
    throw credentialError(
      field,
      `the certificate in auth.cert.${field} has a ${notRsa.algorithm} public key, not RSA; the SII only accepts RSA`,
    );
  }
  if (field === "pfx-data") {
    throw credentialError("pfx-data", "auth.cert.pfx-data holds no certificate matching its private key");
  }
  throw credentialError("pkey-data", "the private key in auth.cert.pkey-data does not match the certificate in auth.cert.cert-data");
}

async function assemble(
  key: RsaPrivateKey,
  { signer, chain }: Paired,
  fields: { key: CertField; cert: CertField },
): Promise<SigningCredential> {
  if (signer.ruts.length > 1) {
    throw credentialError(fields.cert, `the certificate names more than one RUT (${signer.ruts.join(", ")}): whose it is stays open`);
  }
  if (!signer.rut) {
    throw credentialError(
      fields.cert,
      "the certificate carries no RUT (neither a subjectAltName otherName 1.3.6.1.4.1.8321.1 nor a subject serialNumber holds one)",
    );
  }
  let privateKey: CryptoKey;
  try {
    privateKey = await crypto.subtle.importKey("pkcs8", key.pkcs8, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-1" }, false, ["sign"]);
  } catch {
    throw credentialError(fields.key, `the RSA private key in auth.cert.${fields.key} could not be loaded`);
  }
  return Object.freeze({
    privateKey,
    certificateDer: signer.der,
    chainDer: chain,
    certificatePem: [signer.der, ...chain].map((der) => toPem("CERTIFICATE", der)).join(""),
    privateKeyPkcs8Pem: toPem("PRIVATE KEY", key.pkcs8),
    rut: signer.rut,
    subjectName: signer.subjectName,
    issuerName: signer.issuerName,
    notBefore: signer.notBefore,
    notAfter: signer.notAfter,
    modulusBase64: bytesToBase64(signer.modulus),
    exponentBase64: bytesToBase64(signer.exponent),
    certificateBase64: bytesToBase64(signer.der),
    fingerprint: await sha256Hex(signer.der),
  });
}

function checkValidity(credential: SigningCredential, now: Date, field: CertField): void {
  const day = (date: Date) => date.toISOString().replace(".000Z", "Z");
  if (now.getTime() < credential.notBefore.getTime()) {
    throw credentialError(
      field,
      `the certificate of ${credential.rut} is not valid yet: its validity starts on ${day(credential.notBefore)}`,
    );
  }
  if (now.getTime() > credential.notAfter.getTime()) {
    throw credentialError(field, `the certificate of ${credential.rut} expired on ${day(credential.notAfter)}`);
  }
}
