// An SII answer that parses but does not fit what the gateway reads: a column looked for by its
// header is missing, or the data breaks what it promises itself (a totals row that is not the sum
// of its rows, a count that is not the rows read, a month out of range, a key given twice). The
// gateway then answers nothing from it: a 502 with its own code, so operators can count these and
// learn within minutes that the SII changed a page, never a 200 with other numbers.
import { ApiError } from "../lib/api-error.ts";
import { redactedExcerpt } from "./redact.ts";

/** `service`: the SII service name (as in /sandbox/v1/faults); `check`: which check failed, in words; `excerpt`: the part that failed it. */
export function formatChanged(service: string, check: string, excerpt?: string): ApiError {
  return new ApiError(
    502,
    "SII_FORMAT_CHANGED",
    `The SII's answer (${service}) does not have the shape the gateway reads: ${check}. Nothing was answered from it.`,
    { details: { service, check, ...(excerpt ? { sii_excerpt: redactedExcerpt(excerpt) } : {}) } },
  );
}
