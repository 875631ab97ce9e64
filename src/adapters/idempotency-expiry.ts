// How the idempotency stores drop expired records: in bounded batches every PURGE_EVERY writes,
// never a scan of the whole table on each write (that made every write slower as the table grew,
// and held the SQLite file's lock while other accounts waited).

/** Writes between two purges. */
export const PURGE_EVERY = 64;
/**
 * Expired records dropped per purge: more than the PURGE_EVERY records the writes in between can
 * add, so the purge keeps up, and few enough that one purge costs a few milliseconds.
 */
export const PURGE_BATCH = 500;

/** A write counter that says when a purge is due (every PURGE_EVERY-th call; the first call too). */
export function purgeSchedule(): () => boolean {
  let writes = 0;
  return () => writes++ % PURGE_EVERY === 0;
}
