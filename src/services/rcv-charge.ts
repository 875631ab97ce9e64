// What the RCV reads charge beyond their weight: a weight per started block of the documents they
// read, taken before those documents are read (`caller.charge`), so a caller who cannot pay for
// them is refused before the SII is asked for them.
import type { Caller } from "../platform/caller.ts";

/** The weight of a detail (synchronous or asynchronous): what each charged block of its rows costs. */
export const DETAIL_WEIGHT = 2;
/**
 * Documents per charged block of the synchronous detail. Measured (gateway CPU, the simulated SII
 * left out, 2-core machine under load): about 55 µs a document (each is read, checked, written,
 * and read again for `sii.data`) over about 45 ms for the summary, session and envelope, so a
 * block at its fullest is about 72 ms for 2 units, 36 ms a unit: within 100 ms a unit on a
 * machine 2.5 times slower. 10 000 documents of a period, 3 916 of type 33: 16 units.
 */
export const DETAIL_BLOCK_ROWS = 500;
/**
 * Documents per charged block of the asynchronous file: about 36 µs a document (unpacked, parsed
 * as CSV, written) over about 20 ms, so a full block is about 56 ms for 2 units, 28 ms a unit
 * (70 ms on a machine 2.5 times slower). 100 000 documents of a period, 40 081 of type 33: 82 units.
 */
export const FILE_BLOCK_ROWS = 1000;

/**
 * Documents per charged unit of the one-document lookup, which reads every state's documents of the
 * type to find the folio and writes out only the matches: about 25 µs a document here, so a full
 * block is about 25 ms a unit. 10 000 documents of a period: 4 units for its 3 900 purchases of type 33.
 */
export const LOOKUP_BLOCK_ROWS = 1000;

/**
 * Documents per charged unit of a download job's stored result (`GET /api/v1/jobs/{id}/result`): its
 * documents were read, checked and paid for when the job fetched them; the read only opens the sealed
 * pieces and writes them out. Measured (the bench's cost table, 2-core machine under load): the purchases
 * of type 33 of the 100 000-document period, 8 units, in about 190 ms: 24 ms a unit.
 */
export const RESULT_BLOCK_ROWS = 5000;

/** The weight per started block of `block` documents (the weight for none): every RCV read charged by its documents. */
const blockUnits = (rows: number, block: number, weight: number) => weight * Math.max(1, Math.ceil(rows / block));

/** Units for a lookup that read `read` documents: 1 (its weight) per started block of LOOKUP_BLOCK_ROWS. */
export const lookupUnits = (read: number) => blockUnits(read, LOOKUP_BLOCK_ROWS, 1);

/** Units for reading a stored result of `rows` documents: 1 (its weight) per started block of RESULT_BLOCK_ROWS. */
export const resultUnits = (rows: number) => blockUnits(rows, RESULT_BLOCK_ROWS, 1);

/** Units for a detail of `rows` documents charged by blocks of `block`: the weight per started block, the weight for none. */
export const rowUnits = (rows: number, block: number) => blockUnits(rows, block, DETAIL_WEIGHT);

/** Takes the units for a read of `rows` documents before the first of them is read, or throws 429 QUOTA_EXCEEDED. */
export type PayRows = (rows: number) => Promise<void>;

/** The charge's words in a 429: the same as for the weight. */
const WHY = "this call";

/** Takes what the documents read so far cost beyond what was paid (the weight first), before they are checked. */
export function payLookup(caller: Caller): PayRows {
  let paid = lookupUnits(0);
  return async (read) => {
    const due = lookupUnits(read);
    if (due > paid) await caller.charge(due - paid, WHY);
    paid = Math.max(paid, due);
  };
}

/** Takes what `rows` documents cost beyond the weight (already paid), before they are read: 429 when the plan lacks it. */
export const payRows =
  (caller: Caller, block: number): PayRows =>
  (rows) =>
    caller.charge(rowUnits(rows, block) - DETAIL_WEIGHT, WHY);
