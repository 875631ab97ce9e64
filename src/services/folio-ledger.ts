// The folio ledger beyond HTTP, shared by the ledger's own operations, caf/solicitar (`ledger: true`),
// caf/anular and generar: the one calendar day every expiry is judged by, the view of a ledger
// (never its CAF files), adding a CAF after reading it as generar does, and the sealing of the files.

import { CafError, cafVence, readCaf } from "../dte/generate/caf.ts";
import { santiagoDate } from "../lib/dates.ts";
import { parseRut } from "../lib/rut.ts";
import { open, seal } from "../lib/secret-box.ts";
import { fieldError } from "../platform/body-field.ts";
import type { Caller } from "../platform/caller.ts";
import { ApiError } from "../platform/errors.ts";
import type { Deps } from "../ports/deps.ts";
import type { FolioRangeState } from "../ports/stores.ts";
import { trustedCafKeys } from "./caf-keys.ts";
import { watchLedger } from "./folio-watch.ts";

/** The CAF files the ledger holds carry the range's private key (RSASK): sealed with SECRET_KEY under this purpose. */
const SEAL_PURPOSE = "folio-caf";

/** A range is flagged `por_vencer` this many days before its `vence`. */
export const EXPIRY_WARNING_DAYS = 30;

/**
 * The day (YYYY-MM-DD) a ledger judges expiry by: the calendar day in Chile, as generation checks a
 * CAF's expiry (src/dte/generate/generate.ts), so the ledger's `vence`/`por_vencer`, its
 * allocation and the signing never disagree in the hours UTC is a day ahead of Santiago.
 */
export const ledgerToday = (deps: Deps): string => santiagoDate(deps.clock.now());

export interface LedgerRangeView {
  desde: number;
  hasta: number;
  usados: number;
  anulados: number;
  sin_respuesta: number;
  disponibles: number;
  autorizado: string;
  vence: string | null;
  bajo_umbral: boolean;
  por_vencer: boolean;
}

export interface LedgerView {
  disponibles: number;
  siguiente: number | null;
  umbral: number | null;
  bajo_umbral: boolean;
  rangos: LedgerRangeView[];
}

export function sealCaf(deps: Deps, caf: string): Promise<string> {
  return seal(deps.config.secretKey, SEAL_PURPOSE, caf);
}

/** A CAF file the ledger holds, opened; a box that does not open (another SECRET_KEY) is a server fault. */
export async function openCaf(deps: Deps, box: string): Promise<string> {
  const caf = await open(deps.config.secretKey, SEAL_PURPOSE, box);
  if (caf === null) throw new Error("a CAF of the folio ledger does not open with SECRET_KEY");
  return caf;
}

/** `day` (YYYY-MM-DD) plus `days`. */
const plusDays = (day: string, days: number): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/**
 * The ledger as answered: the ranges expired by `today` count for nothing available. With an
 * `umbral`, every range is flagged `bajo_umbral` when what the whole type has left is at or below
 * it; a range whose `vence` falls within EXPIRY_WARNING_DAYS of `today` is `por_vencer`.
 */
export function ledgerView(ranges: readonly FolioRangeState[], today: string, umbral: number | null): LedgerView {
  const usable = ranges.filter((r) => r.vence === null || r.vence >= today);
  const disponibles = usable.reduce((n, r) => n + r.disponibles, 0);
  const low = umbral !== null && disponibles <= umbral;
  const soon = plusDays(today, EXPIRY_WARNING_DAYS);
  return {
    disponibles,
    siguiente: usable.find((r) => r.siguiente !== null)?.siguiente ?? null,
    umbral,
    bajo_umbral: low,
    rangos: ranges.map(({ siguiente: _next, ...range }) => ({
      ...range,
      bajo_umbral: low,
      por_vencer: range.vence !== null && range.vence >= today && range.vence <= soon,
    })),
  };
}

/** The account's ledger of `emisor` and `dte` as answered today (ledgerToday), read with its threshold. */
export async function readLedger(deps: Deps, account: string, emisor: string, dte: number) {
  const [ranges, umbral] = await Promise.all([deps.folios.ranges(account, emisor, dte), deps.folios.threshold(account, emisor, dte)]);
  return { ranges, view: ledgerView(ranges, ledgerToday(deps), umbral) };
}

/**
 * Adds `file` (base64 or raw XML) to the account's ledger of `emisor` and `dte`, as POST folios and
 * caf/solicitar (with `ledger: true`) do: read as generar reads it (the SII's signature over the one
 * parsed DA), granted to this issuer for this type, sharing no folio with a range held; kept sealed.
 * Answers the ledger and the range added.
 */
export async function addCaf(caller: Caller, emisor: string, dte: number, file: string) {
  const { deps } = caller;
  const account = caller.account();
  let caf: Awaited<ReturnType<typeof readCaf>>;
  try {
    caf = await readCaf(file, "caf", trustedCafKeys(deps));
  } catch (error) {
    if (!(error instanceof CafError)) throw error;
    throw fieldError(error.problem.path, error.problem.message);
  }
  const granted = parseRut(caf.re);
  if (!granted.ok || granted.rut !== emisor)
    throw fieldError("caf.DA.RE", `is ${caf.re}: the CAF was granted to another issuer than ${emisor}`);
  if (caf.td !== dte) throw fieldError("caf.DA.TD", `is ${caf.td}: the CAF is for another document type than ${dte}`);
  const range = { desde: caf.desde, hasta: caf.hasta, autorizado: caf.fa, vence: cafVence(caf.td, caf.fa) };
  const added = await deps.folios.add(account, emisor, dte, { ...range, caf: await sealCaf(deps, file) });
  if (added.state === "overlap") {
    // One CAF, one ledger: another account's range is not named by its account, nor its range given.
    throw new ApiError(
      409,
      "FOLIOS_OVERLAP",
      added.elsewhere
        ? `Folios ${caf.desde}–${caf.hasta} of ${emisor}, type ${dte}, are held by another account's folio ledger: a CAF's folios are handed out by one ledger only`
        : `Folios ${caf.desde}–${caf.hasta} overlap the range ${added.desde}–${added.hasta} this account already holds for ${emisor}, type ${dte}`,
      { details: added.elsewhere ? { otra_cuenta: true } : { desde: added.desde, hasta: added.hasta } },
    );
  }
  const umbral = await deps.folios.threshold(account, emisor, dte);
  const view = ledgerView(added.rangos, ledgerToday(deps), umbral);
  // Just added, so it is there.
  const rango = view.rangos.find((r) => r.desde === caf.desde) as LedgerRangeView;
  await watchLedger(caller, { emisor, dte });
  return { ...view, rango };
}

/** Sets (or with null removes) the low-folio threshold of `emisor` and `dte`; answers the ledger with it. */
export async function setLedgerThreshold(caller: Caller, emisor: string, dte: number, umbral: number | null) {
  const { deps } = caller;
  await deps.folios.setThreshold(caller.account(), emisor, dte, umbral);
  const { view } = await readLedger(deps, caller.account(), emisor, dte);
  if (umbral !== null) await watchLedger(caller, { emisor, dte });
  return view;
}
