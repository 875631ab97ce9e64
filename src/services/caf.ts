// The SII's folio ranges (CAF) for a caller: stamping a range in the taxpayer's certificate session,
// and annulling unused folios. Both are irreversible at the SII: never retried here (the operation
// wrapper honours Idempotency-Key), and a preview (dry_run) asks the SII nothing. What the SII
// grants or annuls reaches the account's folio ledger: a granted CAF is added when asked, annulled
// folios are voided there.
import type { SigningCredential } from "../certificates/credentials.ts";
import { santiagoDate } from "../lib/dates.ts";
import { bytesToBase64 } from "../lib/encoding.ts";
import type { Caller } from "../platform/caller.ts";
import { ApiError } from "../platform/errors.ts";
import type { PreviewMarks } from "../platform/preview.ts";
import { annulFolios, requestFolios } from "../sii/folios.ts";
import { addCaf } from "./folio-ledger.ts";
import { siiServicesFor } from "./sii-context.ts";

export interface CafRequest {
  emisor: string;
  tipo: number;
  cantidad: number;
  ambiente: "0" | "1";
  /** Also add the CAF granted to the account's folio ledger. */
  ledger: boolean;
}

/** What only the SII decides in a folio request's preview; the folios are placeholders too unless the ledger knows the last ones. */
export const CAF_PLACEHOLDERS = ["caf_xml", "reobtenido"] as const;
/** What the preview estimates: the date (today in Chile) and the count (the SII may grant fewer, its MAX_AUTOR). */
export const CAF_ESTIMATES = ["fecha_autorizacion", "cantidad"] as const;
/** What only the SII decides in an annulment's preview, and what it estimates. */
export const ANNUL_PLACEHOLDERS = ["glosa", "anulados_ledger"] as const;
export const ANNUL_ESTIMATES = ["folios_anulados"] as const;

/** A range stamped (or, with `dryRun`, its preview) and what the answer says of it. */
export async function requestCaf(caller: Caller, credential: SigningCredential, request: CafRequest, dryRun: boolean) {
  const { emisor, tipo, cantidad, ambiente } = request;
  if (dryRun) {
    // The SII picks the range: the ledger's highest folio + 1 is where it likely starts; without one, 1–N stand in.
    const held = await caller.deps.folios.ranges(caller.account(), emisor, tipo);
    const next = held.reduce((top, range) => Math.max(top, range.hasta), 0) + 1;
    const range = held.length > 0 ? { folio_inicial: next, folio_final: next + cantidad - 1 } : { folio_inicial: 1, folio_final: cantidad };
    const vista_previa: PreviewMarks =
      held.length > 0
        ? { provisionales: [...CAF_PLACEHOLDERS], estimados: ["folio_inicial", "folio_final", ...CAF_ESTIMATES] }
        : { provisionales: ["folio_inicial", "folio_final", ...CAF_PLACEHOLDERS], estimados: [...CAF_ESTIMATES] };
    const fecha_autorizacion = santiagoDate(caller.deps.clock.now());
    const data = { ...range, fecha_autorizacion, cantidad, reobtenido: false, caf_xml: "", vista_previa };
    const from = held.length > 0 ? `; the folios shown follow the ${next - 1} this account's ledger holds` : "";
    return {
      data,
      message: `Preview only (dry_run): the certificate of ${credential.rut} is valid; nothing was requested from the SII${from}`,
    };
  }
  const { ctx, sessions } = await siiServicesFor(caller);
  const { caf, ...range } = await sessions.withCertificate(credential, ambiente, (jar) =>
    requestFolios(ctx, jar, { emisor, tipo, cantidad, ambiente }),
  );
  const data = { ...range, caf_xml: bytesToBase64(caf) };
  const message = `Folios ${range.folio_inicial} to ${range.folio_final} granted`;
  if (!request.ledger) return { data, message };
  // The folios are stamped whatever the ledger says: a refusal to add them is told, never thrown, so the file is not lost.
  try {
    const ledger = await addCaf(caller, emisor, tipo, data.caf_xml);
    return { data: { ...data, ledger }, message: `${message} and added to the folio ledger` };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { data: { ...data, ledger: null }, message: `${message}; not added to the folio ledger: ${error.message}` };
  }
}

export interface CafAnnulment {
  emisor: string;
  tipo: number;
  desde: number;
  hasta: number;
  ambiente: "0" | "1";
}

/** Unused folios annulled at the SII (or, with `dryRun`, the preview), then voided in the account's ledger. */
export async function annulCaf(caller: Caller, credential: SigningCredential, annulment: CafAnnulment, dryRun: boolean) {
  const { emisor, tipo, desde, hasta } = annulment;
  const count = hasta - desde + 1;
  if (dryRun) {
    const vista_previa: PreviewMarks = { provisionales: [...ANNUL_PLACEHOLDERS], estimados: [...ANNUL_ESTIMATES] };
    const data = { glosa: "", folios_anulados: count, anulados_ledger: 0, vista_previa };
    return { data, message: `Preview only (dry_run): ${count} folios would be annulled; nothing was sent to the SII` };
  }
  const { ctx, sessions } = await siiServicesFor(caller);
  const result = await sessions.withCertificate(credential, annulment.ambiente, (jar) => annulFolios(ctx, jar, annulment));
  // The SII annulled them: the account's ledger never hands them out (a range it does not hold is left alone).
  const anulados_ledger = await caller.deps.folios.void(caller.account(), emisor, tipo, desde, hasta);
  return { data: { ...result, anulados_ledger }, message: `${result.folios_anulados} folios annulled` };
}
