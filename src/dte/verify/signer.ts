// Who signed a received document, and whether that can be trusted (docs/dte-engine.md §3.7): the
// signer's certificate as the signature carries it, whether it may sign at all, its validity at the
// signing time the document states (bounded by what the signer cannot forge), and its chain to the
// trust store. A self-signed certificate, or one whose chain is
// broken or was not valid when it signed, leaves the signature unable to say who signed: the
// signature is then invalid, not merely unremarkable. An unknown issuer is reported as such: real
// DTEs are signed under class-2 CAs whose certificates are not public (research on Chile's CAs).
import { signerProfile } from "../../certificates/signer-profile.ts";
import { santiagoIso } from "../../lib/dates.ts";
import { remembered, rememberedFor } from "../../lib/remembered.ts";
import { type Confianza, type TrustStore, type TrustVerdict, verifyChain } from "../trust/chain.ts";
import { childText, findChild, type XmlElement } from "../xml/parse.ts";
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

/** A signing time as the document states it: the element's name, its text (Chile's wall clock) and the instant. */
export interface StatedTime {
  name: "TmstFirma" | "TmstFirmaEnv";
  local: string;
  at: Date;
}

const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;
const LOCAL_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A stated signing time (`TmstFirma`, `TmstFirmaEnv`), or null when absent or unreadable. */
export function signingTime(element: XmlElement | undefined, name: StatedTime["name"]): StatedTime | null {
  const local = childText(element, name);
  if (!LOCAL_TIME.test(local)) return null;
  const at = new Date(santiagoIso(local));
  return Number.isNaN(at.getTime()) ? null : { name, local, at };
}

/**
 * What bounds a document's signing time that its signer cannot move: the TED's TSTED (signed with
 * the CAF's key), the CAF's FA (signed by the SII) and the FchEmis the TED repeats; each null when
 * absent or unreadable. Chile's wall clock, as the document writes them.
 */
export interface StampTimes {
  tsted: string | null;
  fa: string | null;
  fchEmis: string | null;
}

export function stampTimes(documento: XmlElement): StampTimes {
  const dd = findChild(documento, "TED", "DD");
  const read = (text: string, shape: RegExp) => (shape.test(text) ? text : null);
  return {
    tsted: read(childText(dd, "TSTED"), LOCAL_TIME),
    fa: read(childText(dd, "CAF", "DA", "FA"), LOCAL_DATE),
    fchEmis: read(childText(documento, "Encabezado", "IdDoc", "FchEmis"), LOCAL_DATE),
  };
}

/**
 * What bounds an envelope's TmstFirmaEnv: it carries its documents, so it was signed after the
 * latest of their TSTEDs and CAF dates [inferred from the order: SetDTE holds the signed DTEs].
 */
export function envelopeStampTimes(documentos: readonly XmlElement[]): StampTimes {
  const latest = (values: (string | null)[]) => values.reduce<string | null>((a, b) => (b !== null && (a === null || b > a) ? b : a), null);
  const times = documentos.map(stampTimes);
  return { tsted: latest(times.map((t) => t.tsted)), fa: latest(times.map((t) => t.fa)), fchEmis: null };
}

/** How far a stated signing time may run ahead of the verifier's clock (clocks drift). */
export const CLOCK_SKEW_MS = 5 * 60_000;
/**
 * How many days before its FchEmis a document may be signed. Inferred: no SII rule found; real
 * documents are signed the day before their FchEmis (cl-sii's `DTE--76399752-9--33--25568.xml`:
 * TSTED and TmstFirma 2019-03-28, FchEmis 2019-03-29), and a date weeks ahead is not an invoice's.
 */
export const FCHEMIS_LEAD_DAYS = 7;

const daysBefore = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);

/**
 * Why the stated signing time cannot be the one the chain is judged at, or null. Not after the
 * verification; not before the TED's TSTED (the TED lies inside the signed Documento, DTE_v10.xsd,
 * so it was made first: "TimeStamp de Generacion del Timbre"); not before the CAF's FA (the SII
 * authorises folios before they are stamped); not more than FCHEMIS_LEAD_DAYS before FchEmis.
 */
export function signingTimeProblem(signed: StatedTime, now: Date, stamp: StampTimes | null): string | null {
  const says = `cannot be judged at ${signed.local}, the ${signed.name} the document states: that is`;
  if (signed.at.getTime() > now.getTime() + CLOCK_SKEW_MS)
    return `${says} after the moment of verification (${now.toISOString()}): a signing time cannot lie ahead`;
  const day = signed.local.slice(0, 10);
  if (stamp?.tsted && signed.local < stamp.tsted)
    return `${says} before the TED's TSTED (${stamp.tsted}): a document is stamped, then signed`;
  if (stamp?.fa && day < stamp.fa) return `${says} before its CAF was authorised (FA ${stamp.fa})`;
  if (stamp?.fchEmis && day < daysBefore(stamp.fchEmis, FCHEMIS_LEAD_DAYS))
    return `${says} more than ${FCHEMIS_LEAD_DAYS} days before the document's FchEmis (${stamp.fchEmis})`;
  return null;
}

/** When the signer is judged: the verification's clock, and what the stamps say. */
export interface SigningContext {
  now: Date;
  stamp: StampTimes | null;
}

/** A signer's report, and a note on how its signature passed (an RSA key the SII still takes, but short). */
export interface Signer {
  report: SignerReport;
  note: string | null;
}

/** What a certificate may sign, read once per certificate read (xmldsig.ts keeps its readings). */
const profileOf = rememberedFor(signerProfile);

/** A certificate's chain at a moment, judged once per store, certificate and moment (documents signed in one second share it). */
const chainsOf = rememberedFor((store: TrustStore) =>
  rememberedFor((der: Uint8Array) => remembered(16, (at: number): Promise<TrustVerdict> => verifyChain(der, store, new Date(at)))),
);

/**
 * The signer of a checked signature: the certificate must be a signer's (signer-profile.ts), and its
 * chain is judged at the stated signing time when that time is within its bounds (at `now` when the
 * document states none); a time out of bounds or a certificate that may not sign is `cadena_invalida`.
 */
export async function signerReport(
  firma: SignatureCheck | null,
  signed: StatedTime | null,
  context: SigningContext,
  store: TrustStore,
): Promise<Signer | null> {
  const firmante = firma?.firmante;
  if (!firmante) return null;
  const desde = new Date(firmante.desde);
  const hasta = new Date(firmante.hasta);
  const profile = profileOf(firmante.der);
  const outOfBounds = signed && signingTimeProblem(signed, context.now, context.stamp);
  const chain = outOfBounds
    ? { confianza: "cadena_invalida" as const, cadena: [firmante.nombre], motivo: outOfBounds }
    : await chainsOf(store)(firmante.der)((signed?.at ?? context.now).getTime());
  // A self-signed certificate is that first; any other that may not sign is refused whatever its chain.
  const verdict =
    profile.refusals.length && chain.confianza !== "autofirmado" && !outOfBounds
      ? { ...chain, confianza: "cadena_invalida" as const, motivo: `"${firmante.nombre}" ${profile.refusals.join("; it ")}` }
      : chain;
  const report: SignerReport = {
    rut: firmante.rut,
    nombre: firmante.nombre,
    emisor: firmante.emisor,
    vigente_desde: firmante.desde,
    vigente_hasta: firmante.hasta,
    vigente_al_firmar: signed ? signed.at >= desde && signed.at <= hasta : null,
    ...verdict,
  };
  return { report, note: profile.warnings.join("; ") || null };
}

/**
 * The signature check as reported: a signature whose certificate is self-signed, may not sign, or
 * whose chain is broken or not valid at the signing time, does not establish a signer, so it is
 * invalid; one that passes carries the signer's note.
 */
export function withSigner<T extends { valido: boolean; motivo: string | null }>(check: T, signer: Signer | null): T {
  if (!check.valido || !signer) return check;
  const { report } = signer;
  if (report.confianza === "autofirmado")
    return { ...check, valido: false, motivo: "the signer's certificate is self-signed: anyone can make one for any name and RUT" };
  if (report.confianza === "cadena_invalida") return { ...check, valido: false, motivo: `the signer's certificate: ${report.motivo}` };
  if (report.vigente_al_firmar === false) {
    return {
      ...check,
      valido: false,
      motivo: `the signer's certificate was not valid when the document says it was signed (valid ${report.vigente_desde} to ${report.vigente_hasta})`,
    };
  }
  return signer.note ? { ...check, motivo: [check.motivo, signer.note].filter(Boolean).join("; ") } : check;
}
