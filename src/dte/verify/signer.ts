// Who signed a received document, and whether that can be trusted (docs/dte-engine.md §3.7): the
// signer's certificate as the signature carries it, its validity at the signing time the document
// states, and its chain to the trust store. A self-signed certificate, or one whose chain is
// broken or was not valid when it signed, leaves the signature unable to say who signed: the
// signature is then invalid, not merely unremarkable. An unknown issuer is reported as such: real
// DTEs are signed under class-2 CAs whose certificates are not public (research on Chile's CAs).
import { santiagoIso } from "../../lib/dates.ts";
import { type Confianza, type TrustStore, verifyChain } from "../trust/chain.ts";
import { childText, type XmlElement } from "../xml/parse.ts";
import type { SignatureCheck } from "./xmldsig.ts";

export interface SignerReport {
  rut: string | null;
  nombre: string;
  emisor: string;
  vigente_desde: string;
  vigente_hasta: string;
  /** Whether the certificate was valid at the signing time the document states; null when it states none. */
  vigente_al_firmar: boolean | null;
  confianza: Confianza;
  /** Subject names from the signer up to the trusted CA (the signer alone when no chain was found). */
  cadena: string[];
  /** Why the chain is not established; null when it is. */
  motivo: string | null;
}

/**
 * The fields of a document a valid stamp vouches for whoever signed it: the TED's DD repeats them
 * and the CAF's key (which the SII signed) signs the DD; the coherence check compares each.
 */
export const STAMPED_FIELDS = [
  "Encabezado.Emisor.RUTEmisor",
  "Encabezado.IdDoc.TipoDTE",
  "Encabezado.IdDoc.Folio",
  "Encabezado.IdDoc.FchEmis",
  "Encabezado.Receptor.RUTRecep",
  "Encabezado.Totales.MntTotal",
  "Detalle[0].NmbItem (its first 40 characters)",
] as const;

/** A stated signing time (`TmstFirma`, `TmstFirmaEnv`: Chile's wall clock), or null when absent or unreadable. */
export function signingTime(element: XmlElement | undefined, name: "TmstFirma" | "TmstFirmaEnv"): Date | null {
  const local = childText(element, name);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(local)) return null;
  const at = new Date(santiagoIso(local));
  return Number.isNaN(at.getTime()) ? null : at;
}

/** The signer of a checked signature, with its trust verdict at `signedAt` (or `now` when the document states no time). */
export async function signerReport(
  firma: SignatureCheck | null,
  signedAt: Date | null,
  now: Date,
  store: TrustStore,
): Promise<SignerReport | null> {
  const firmante = firma?.firmante;
  if (!firmante) return null;
  const at = signedAt ?? now;
  const verdict = await verifyChain(firmante.der, store, at);
  const desde = new Date(firmante.desde);
  const hasta = new Date(firmante.hasta);
  return {
    rut: firmante.rut,
    nombre: firmante.nombre,
    emisor: firmante.emisor,
    vigente_desde: firmante.desde,
    vigente_hasta: firmante.hasta,
    vigente_al_firmar: signedAt ? signedAt >= desde && signedAt <= hasta : null,
    ...verdict,
  };
}

/**
 * The signature check as reported: a signature whose certificate is self-signed, or whose chain
 * is broken or not valid at the signing time, does not establish a signer, so it is invalid.
 */
export function withSigner<T extends { valido: boolean; motivo: string | null }>(check: T, signer: SignerReport | null): T {
  if (!check.valido || !signer) return check;
  if (signer.confianza === "autofirmado")
    return { ...check, valido: false, motivo: "the signer's certificate is self-signed: anyone can make one for any name and RUT" };
  if (signer.confianza === "cadena_invalida") return { ...check, valido: false, motivo: `the signer's certificate: ${signer.motivo}` };
  if (signer.vigente_al_firmar === false) {
    return {
      ...check,
      valido: false,
      motivo: `the signer's certificate was not valid when the document says it was signed (valid ${signer.vigente_desde} to ${signer.vigente_hasta})`,
    };
  }
  return check;
}
