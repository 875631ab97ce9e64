// The RCV details' charging rule in their descriptions' words, from the service's own numbers
// (src/services/rcv-charge.ts), so the OpenAPI text cannot drift from what is charged.
import { DETAIL_WEIGHT, rowUnits } from "../../services/rcv-charge.ts";

/** What the synchronous detail's charge counts, and what it refuses past it, in its description's words. */
export const DETAIL_COUNT = {
  counted: "the period's summary, read first (the type's count; with `dte` 0 every type's with detail, and for `formato=csv` every type's)",
  past: "A type's detail with more documents than its count is a 502 `SII_FORMAT_CHANGED` at the first past it; a type past the synchronous detail's ceiling (no rows though the summary counts them: the 502 pointing to the asynchronous download) costs the weight only.",
};
/** The same of the asynchronous file. */
export const FILE_COUNT = {
  counted: "its download request's declared count (`caNumLineas`, read with its state; the file is fetched after)",
  past: "A file with more documents than declared is a 502 at the first past them.",
};

/** The charging rule of a detail charged by blocks of `block` documents, as its description states it. */
export const detailChargeRule = (block: number, { counted, past }: { counted: string; past: string }) =>
  `Charged ${DETAIL_WEIGHT} units (the operation's weight) per started block of ${block} documents: 1–${block} (or none) ${DETAIL_WEIGHT}, ${block + 1}–${2 * block} ${2 * DETAIL_WEIGHT}, 10 000 ${rowUnits(10_000, block)}. The documents are counted by ${counted} before any is read, so \`X-Quota-Units\` is the whole charge; a caller who cannot pay for them gets 429 \`QUOTA_EXCEEDED\` and no document is read (the weight stays charged for the SII read that counted them). ${past}`;
