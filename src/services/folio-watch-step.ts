// One look of the folio ledger's watch (./folio-watch.ts starts and wakes it): the events of what changed
// since its last look, and its next look WATCH_EVERY_MS later.
import type { Deps } from "../ports/deps.ts";
import type { JobRecord, NewEvent, StepResult } from "../ports/jobs.ts";
import { readLedger } from "./folio-ledger.ts";
import type { WatchInput } from "./folio-watch.ts";

/** How often a watch looks by itself: a range comes within its warning days at most this late. */
export const WATCH_EVERY_MS = 6 * 60 * 60 * 1000;
/** A look that failed (the store out of reach) is tried again this soon. */
const RETRY_MS = 5 * 60 * 1000;

/** What a watch has told: whether the type was low at its last look, and the ranges (`desde`) it warned expire. */
interface Told {
  bajo_umbral: boolean;
  por_vencer: number[];
}

export async function watchFolios(job: JobRecord, deps: Deps): Promise<StepResult> {
  const input = job.input as unknown as WatchInput;
  const now = deps.clock.now().getTime();
  const keep = { estado: "pendiente" as const, progress: job.progress, sealed: null, runs: job.runs };
  if (now >= job.expires) return { update: { ...keep, estado: "completado", due: null, error: null }, events: [] };
  let view: Awaited<ReturnType<typeof readLedger>>["view"];
  try {
    view = (await readLedger(deps, job.account, input.emisor, input.dte)).view;
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    return { update: { ...keep, due: now + RETRY_MS, error: text }, events: [] };
  }
  const told = (job.progress as Told | null) ?? { bajo_umbral: false, por_vencer: [] };
  const { emisor, dte } = input;
  const events: NewEvent[] = [];
  if (view.bajo_umbral && !told.bajo_umbral)
    events.push({ type: "folios.low", data: { emisor, dte, disponibles: view.disponibles, umbral: view.umbral } });
  const expiring = view.rangos.filter((r) => r.por_vencer && r.disponibles > 0 && !told.por_vencer.includes(r.desde));
  for (const { desde, hasta, vence, disponibles } of expiring)
    events.push({ type: "folios.expiring", data: { emisor, dte, desde, hasta, vence, disponibles } });
  // Ranges that left the ledger's view (expired) are forgotten: the list stays as short as the ledger.
  const still = told.por_vencer.filter((desde) => view.rangos.some((r) => r.desde === desde && r.por_vencer));
  const progress: Told = { bajo_umbral: view.bajo_umbral, por_vencer: [...still, ...expiring.map((r) => r.desde)] };
  // A ledger with nothing left to give has nothing more to warn of: the watch ends, and a new CAF starts another.
  const done = view.disponibles === 0;
  const next = { estado: done ? ("completado" as const) : ("pendiente" as const), due: done ? null : now + WATCH_EVERY_MS };
  return { update: { ...keep, ...next, progress: { ...progress }, runs: job.runs + 1, error: null }, events };
}
