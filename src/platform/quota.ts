// An operation's scope and quota weight, as its route declares them next to its path
// (`registerOperation`'s access); `operationsOf(app)` in src/platform/operation.ts lists them all,
// and docs/operations.md's table is checked against that list. Weights: the spec fixes the folio,
// taxpayer-data, BHE and BTE ones; otherwise 1 for a single read, 2 for list/detail/aggregate reads
// and PDF, 5 for writes to the SII and submissions; 0 for the gateway's own (a token's usage).
import type { Scope } from "../ports/access.ts";

export interface OperationSpec {
  method: "GET" | "POST" | "PUT";
  path: string;
  /** null: any valid token may call it. */
  scope: Scope | null;
  weight: number;
  /** POSTs that change state at the SII honour `Idempotency-Key`. */
  changesState: boolean;
}
