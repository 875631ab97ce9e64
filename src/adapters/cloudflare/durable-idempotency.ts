// Idempotency-Key records in a Durable Object per account: exact under concurrency.
import type { IdempotencyStore, StoredResponse } from "../../ports/stores.ts";
import { partsOf } from "../idempotency-parts.ts";
import type { IdempotencyLedger } from "./durable-objects.ts";

/**
 * UTF-8 bytes of one part of a stored answer: half a SQLite row's 2 MB, leaving room for the rest
 * of the row and the record's key.
 */
const PART_BYTES = 1_000_000;
/**
 * Parts sent or read in one RPC call: a part of non-Latin-1 text serializes at two bytes a
 * character, so four stay well inside the 32 MiB an RPC message may carry.
 */
const PARTS_PER_CALL = 4;

/**
 * One Durable Object per account. An answer larger than a part is completed in several calls
 * (its parts staged first, then one call that flips the record) and replayed in several: parts are
 * read under the id of the attempt that completed it, so a record replaced meanwhile is never read half old,
 * half new (its parts are gone, and the start is tried again).
 */
export function durableIdempotencyStore(ns: DurableObjectNamespace<IdempotencyLedger>): IdempotencyStore {
  const ledger = (account: string) => ns.get(ns.idFromName(account));
  type Ledger = ReturnType<typeof ledger>;

  /** The answer of a completed record, or null when its parts went while they were read. */
  const answerOf = async (
    stub: Ledger,
    key: string,
    head: string,
    attempt: string | null,
    parts: number,
  ): Promise<StoredResponse | null> => {
    const texts = [head];
    for (let from = 1; from <= parts; from += PARTS_PER_CALL) {
      const count = Math.min(PARTS_PER_CALL, parts - from + 1);
      const read = attempt === null ? [] : await stub.parts(key, attempt, from, count);
      if (read.length !== count) return null;
      texts.push(...read);
    }
    return JSON.parse(texts.join("")) as StoredResponse;
  };

  return {
    async begin(account, key, fingerprint, attempt, now, leaseMs, maxStored) {
      const stub = ledger(account);
      for (let tries = 0; tries < 3; tries++) {
        const begun = await stub.begin(key, fingerprint, attempt, now.getTime(), leaseMs, maxStored);
        if (begun.state !== "completed") return begun;
        const response = await answerOf(stub, key, begun.head, begun.attempt, begun.parts);
        if (response) return { state: "completed", response };
      }
      return { state: "in_progress" }; // replaced on every read: the caller waits and asks again
    },
    async complete(account, key, fingerprint, attempt, response, now, ttlMs) {
      const stub = ledger(account);
      const [head = "", ...rest] = partsOf(JSON.stringify(response), PART_BYTES);
      for (let at = 0; at < rest.length; at += PARTS_PER_CALL) {
        const kept = await stub.stage(key, fingerprint, attempt, at + 1, rest.slice(at, at + PARTS_PER_CALL), now.getTime() + ttlMs);
        if (!kept) return false; // this attempt holds the record no longer: nothing to complete
      }
      return stub.complete(key, fingerprint, head, attempt, rest.length, now.getTime(), ttlMs);
    },
    abandon: (account, key, fingerprint, attempt) => ledger(account).abandon(key, fingerprint, attempt),
    stored: (account, now) => ledger(account).stored(now.getTime()),
  };
}
