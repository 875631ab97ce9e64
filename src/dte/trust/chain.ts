// Whether a DTE signer's certificate chains to a trusted CA (RFC 5280 §6.1, the parts that matter
// here: names, signatures, validity at the signing time, each CA's basicConstraints, keyUsage and
// pathLen). A DTE carries only the signer's certificate (xmldsignature_v10.xsd allows one
// X509Certificate), so every issuer comes from the store. Whether the signer may sign at all is
// certificates/signer-profile.ts. Pure: WebCrypto only, no I/O.

import { type CertificateLinks, certificateLinks } from "../../certificates/certificate.ts";
import { bytesToHex } from "../../lib/encoding.ts";
import { verifyCertificateSignature } from "./signature.ts";

/** Longest chain walked, signer included. */
export const MAX_CHAIN_DEPTH = 8;
/** Store certificates tried per issuer name (after those whose key id matches). */
export const MAX_CANDIDATES = 4;
/** Signature checks one verification may do, whatever the store holds. */
export const MAX_SIGNATURE_CHECKS = 16;

interface Entry {
  der: Uint8Array;
  links: CertificateLinks;
  /** Issuer and subject are the same name: where a chain ends. */
  anchor: boolean;
}

interface Index {
  bySubject: Map<string, Entry[]>;
}

/** Parsed certificates indexed by subject. Opaque outside this module. */
export interface TrustStore {
  readonly index: () => Promise<Index>;
}

export type Confianza = "cadena_valida" | "emisor_desconocido" | "autofirmado" | "cadena_invalida";

export interface TrustVerdict {
  confianza: Confianza;
  /** Subject display names from the signer up to the anchor (the signer first); just the signer when no chain was found. */
  cadena: string[];
  /** Why it is not `cadena_valida`, in plain words; null when it is. */
  motivo: string | null;
}

const sameBytes = (a: Uint8Array | null, b: Uint8Array | null): boolean =>
  a !== null && b !== null && a.length === b.length && a.every((byte, i) => byte === b[i]);

function addAll(index: Index, certificatesDer: readonly Uint8Array[]): void {
  for (const der of certificatesDer) {
    const links = certificateLinks(der);
    if (!links) continue;
    const key = bytesToHex(links.subject);
    const entries = index.bySubject.get(key) ?? [];
    if (entries.some((e) => sameBytes(e.der, der))) continue;
    entries.push({ der, links, anchor: sameBytes(links.issuer, links.subject) });
    index.bySubject.set(key, entries);
  }
}

/**
 * A store of the given certificates; unreadable entries are skipped, duplicates kept once. `later`,
 * when given, adds certificates that arrive asynchronously (the bundled set is compressed); the
 * first verification waits for them.
 */
export function buildTrustStore(certificatesDer: readonly Uint8Array[], later?: Promise<readonly Uint8Array[]>): TrustStore {
  const index: Index = { bySubject: new Map() };
  addAll(index, certificatesDer);
  if (!later) return { index: () => Promise.resolve(index) };
  let ready: Promise<Index> | undefined;
  return {
    index: () => {
      ready ??= later.then((more) => {
        addAll(index, more);
        return index;
      });
      return ready;
    },
  };
}

/** How many certificates a store holds (for start-up logs and tests). */
export async function trustStoreSize(store: TrustStore): Promise<number> {
  let n = 0;
  for (const entries of (await store.index()).bySubject.values()) n += entries.length;
  return n;
}

const day = (date: Date) => date.toISOString().slice(0, 10);

function validityProblem(links: CertificateLinks, at: Date): string | null {
  if (at < links.notBefore) return `"${links.subjectName}" was not yet valid at ${at.toISOString()} (valid from ${day(links.notBefore)})`;
  if (at > links.notAfter) return `"${links.subjectName}" had expired at ${at.toISOString()} (valid until ${day(links.notAfter)})`;
  return null;
}

/** The store's certificates named as `links`' issuer, those whose key id matches its authority key id first. */
function candidates(index: Index, links: CertificateLinks, path: readonly Entry[]): Entry[] {
  const named = (index.bySubject.get(bytesToHex(links.issuer)) ?? []).filter((e) => !path.some((p) => sameBytes(p.der, e.der)));
  const aki = links.authorityKeyId;
  const rank = (e: Entry) => (aki === null || e.links.subjectKeyId === null ? 1 : sameBytes(aki, e.links.subjectKeyId) ? 0 : 2);
  return named.sort((a, b) => rank(a) - rank(b)).slice(0, MAX_CANDIDATES);
}

type Walk =
  | { kind: "valid"; chain: Entry[] }
  /** An issuer was found but a check failed. */
  | { kind: "invalid"; chain: Entry[]; motivo: string }
  /** The walk reached a certificate whose issuer the store lacks. */
  | { kind: "unknown"; chain: Entry[]; motivo: string };

const severity = { valid: 0, invalid: 1, unknown: 2 } as const;

interface Budget {
  checks: number;
}

/**
 * Why `issuer` may not issue `child` as a CA (RFC 5280 §6.1.4 (k), (l), (n)), checked on every CA
 * the store holds, the operator's TRUST_ANCHORS_PEM included: basicConstraints cA (only a v1 root
 * without the extension is trusted as given), keyUsage keyCertSign when keyUsage is present, and
 * pathLenConstraint against the intermediates below it. Null when it may.
 */
function caProblem(child: Entry, issuer: Entry, path: readonly Entry[]): string | null {
  const { links } = issuer;
  const name = links.subjectName;
  if (!links.isCa && (!issuer.anchor || links.hasBasicConstraints))
    return `"${name}" is not a CA certificate (basicConstraints cA is not true), so it cannot issue "${child.links.subjectName}"`;
  if (links.keyUsage && !links.keyUsage.has("keyCertSign"))
    return `"${name}" has a keyUsage without keyCertSign, so it cannot issue "${child.links.subjectName}"`;
  // Self-issued certificates do not count (§6.1.4 (l)); the signer is not an intermediate.
  const below = path.slice(1).filter((e) => !e.anchor).length;
  if (links.pathLen !== null && below > links.pathLen)
    return `"${name}" allows ${links.pathLen} intermediate CA${links.pathLen === 1 ? "" : "s"} below it (pathLen), and the chain has ${below}`;
  return null;
}

async function tryIssuer(child: Entry, issuer: Entry, path: Entry[], at: Date, index: Index, budget: Budget): Promise<Walk> {
  const chain = [...path, issuer];
  const name = issuer.links.subjectName;
  const notCa = caProblem(child, issuer, path);
  if (notCa) return { kind: "invalid", chain, motivo: notCa };
  if (budget.checks >= MAX_SIGNATURE_CHECKS)
    return { kind: "invalid", chain, motivo: "the chain needed more signature checks than allowed" };
  budget.checks++;
  const signature = await verifyCertificateSignature(child.links, issuer.links.spki);
  if (signature !== "valid") {
    const what = signature === "invalid" ? "does not verify" : `uses ${signature.unsupported}, which cannot be checked`;
    return { kind: "invalid", chain, motivo: `the signature of "${name}" on "${child.links.subjectName}" ${what}` };
  }
  const expired = validityProblem(issuer.links, at);
  if (expired) return { kind: "invalid", chain, motivo: expired };
  if (issuer.anchor) return { kind: "valid", chain };
  return walk(issuer, chain, at, index, budget);
}

async function walk(child: Entry, path: Entry[], at: Date, index: Index, budget: Budget): Promise<Walk> {
  if (path.length >= MAX_CHAIN_DEPTH)
    return { kind: "invalid", chain: path, motivo: `the chain is longer than ${MAX_CHAIN_DEPTH} certificates` };
  const found = candidates(index, child.links, path);
  if (found.length === 0) {
    const motivo = `the issuer "${child.links.issuerName}" of "${child.links.subjectName}" is not in the trust store`;
    return { kind: "unknown", chain: path, motivo };
  }
  let best: Walk | null = null;
  for (const issuer of found) {
    const outcome = await tryIssuer(child, issuer, path, at, index, budget);
    if (outcome.kind === "valid") return outcome;
    if (!best || severity[outcome.kind] < severity[best.kind]) best = outcome;
  }
  return best as Walk;
}

/** `at`: the moment the validity periods are checked against (the document's signing time). */
export async function verifyChain(leafDer: Uint8Array, store: TrustStore, at: Date): Promise<TrustVerdict> {
  const links = certificateLinks(leafDer);
  if (!links) return { confianza: "cadena_invalida", cadena: [], motivo: "the signer's certificate is not a readable X.509 certificate" };
  const leaf: Entry = { der: leafDer, links, anchor: sameBytes(links.issuer, links.subject) };
  const signer = [links.subjectName];
  // A DTE signer is never a root: a certificate that vouches for itself proves nothing, store or not.
  if (leaf.anchor && (await verifyCertificateSignature(links, links.spki)) === "valid")
    return { confianza: "autofirmado", cadena: signer, motivo: `"${links.subjectName}" is self-signed: no CA vouches for it` };
  const index = await store.index();
  const expired = validityProblem(links, at);
  const outcome = await walk(leaf, [leaf], at, index, { checks: 0 });
  const cadena = outcome.chain.map((e) => e.links.subjectName);
  if (outcome.kind === "unknown") {
    const motivo = expired ? `${outcome.motivo}; besides, ${expired}` : outcome.motivo;
    return { confianza: "emisor_desconocido", cadena: outcome.chain.length > 1 ? cadena : signer, motivo };
  }
  if (outcome.kind === "invalid") return { confianza: "cadena_invalida", cadena, motivo: outcome.motivo };
  if (expired) return { confianza: "cadena_invalida", cadena, motivo: expired };
  return { confianza: "cadena_valida", cadena, motivo: null };
}
