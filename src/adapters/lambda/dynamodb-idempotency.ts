import type { IdempotencyBegin, IdempotencyStore, StoredResponse } from "../../ports/stores.ts";
import { inGroups, partsOf } from "../idempotency-parts.ts";
import {
  type Call,
  conditional,
  count,
  DynamoError,
  type GetItem,
  isConditionFailed,
  isRecord,
  itemIn,
  type Json,
  key,
  N,
  parseJson,
  S,
  text,
} from "./dynamodb-wire.ts";

// Idempotency: `until_ms` is when the record stops counting, the lease's end while in progress
// and the replay window's end once completed. `begin` is one conditional PutItem that succeeds
// only where no live record is, so of concurrent callers exactly one starts.
//
// The answers an account holds are counted per UTC hour of completion (one small item per hour)
// rather than by querying the records, whose sealed answers would make every count read megabytes.
// An answer lives 24 h, so the count sums the current hour and the 24 before: it may count an hour
// of answers that have just expired, never miss a live one. It is read after the start, not in
// the same write, so concurrent first calls may pass the cap by as many as run at once.
const HOUR_MS = 3_600_000;
const hourKey = (ms: number) => `h#${new Date(ms).toISOString().slice(0, 13)}`;

// An item holds at most 400 KB, names and values ("Items", awsdocs/amazon-dynamodb-developer-guide
// doc_source/ServiceQuotas.md), so an answer's JSON text is kept in parts: the first in the record's
// `response`, the rest in part items under the same pk (sort key: the record's key, a space, which
// no Idempotency-Key holds, the attempt's id and the part's number). A record in progress names the
// attempt holding it (`attempt`, a takeover after the lease replaces it). The parts are written
// first; the record then says "completed" with their count, conditional on being in progress under
// the same fingerprint and attempt, so a reader never finds a completed record without all its parts
// and an attempt whose lease a retry took over completes nothing (its parts go).
// Parts expire with their record (TTL); a record replaced (a new start over an expired answer) has
// its parts deleted by whoever replaced it, with what the PutItem returned.
// An attempt that fails between its parts and its record leaves parts only the TTL removes.
/** UTF-8 bytes of one part: what an item holds, less room for the record's other attributes. */
const PART_BYTES = 380_000;
/** Part items written or read at once by one call. */
const PARTS_AT_ONCE = 8;
/**
 * A large answer sends megabytes to one partition key at once, past what a partition takes in a
 * second: a throttled part is tried again after 50 ms, doubling up to ~13 s in all, as "Error
 * Retries and Exponential Backoff" advises for these errors (awsdocs/amazon-dynamodb-developer-guide
 * doc_source/Programming.Errors.md; the AWS SDKs do the same).
 */
const THROTTLED = new Set(["ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"]);
const RETRIES = 8;

/** `call` with throttled requests tried again (only for the idempotent part requests). */
function patient(call: Call): Call {
  return async (operation, body) => {
    for (let tries = 0; ; tries++) {
      try {
        return await call(operation, body);
      } catch (err) {
        if (!(err instanceof DynamoError && THROTTLED.has(err.type)) || tries >= RETRIES) throw err;
        await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** tries));
      }
    }
  };
}

export function dynamoIdempotencyStore(call: Call, TableName: string, getItem: GetItem): IdempotencyStore {
  const recordKey = (account: string, name: string) => key(`idem#${account}`, name);
  const partCall = patient(call);

  const partKey = (account: string, name: string, attempt: string, n: number) => key(`idem#${account}`, `${name} ${attempt} ${n}`);

  /** Deletes the parts of a record that is gone (as a PutItem returned it), if it had any. */
  const dropParts = async (account: string, name: string, old: Json | undefined) => {
    const attempt = text(old, "attempt");
    if (!attempt) return;
    const numbers = Array.from({ length: count(old, "parts") }, (_, i) => i + 1);
    await inGroups(numbers, PARTS_AT_ONCE, (n) => partCall("DeleteItem", { TableName, Key: partKey(account, name, attempt, n) }));
  };

  /** A conditional PutItem of a record: what it replaced ({} for nothing), or null when its condition did not hold. */
  const putRecord = async (body: Json): Promise<Json | null> => {
    try {
      return itemIn(await call("PutItem", { TableName, ReturnValues: "ALL_OLD", ...body }), "Attributes") ?? {};
    } catch (err) {
      if (isConditionFailed(err)) return null;
      throw err;
    }
  };

  const tryStart = async (account: string, name: string, fingerprint: string, attempt: string, untilMs: number, nowMs: number) => {
    const replaced = await putRecord({
      Item: {
        ...recordKey(account, name),
        state: S("in_progress"),
        fingerprint: S(fingerprint),
        attempt: S(attempt),
        until_ms: N(untilMs),
        expires_at: N(Math.ceil(untilMs / 1000)),
      },
      ConditionExpression: "attribute_not_exists(pk) OR until_ms <= :now",
      ExpressionAttributeValues: { ":now": N(nowMs) },
    });
    if (replaced) await dropParts(account, name, replaced); // an expired answer's
    return replaced !== null;
  };

  /** A completed record's answer: its head and its parts; null when a part is gone (the record was replaced meanwhile). */
  const answerOf = async (account: string, name: string, item: Json): Promise<StoredResponse | null> => {
    const attempt = text(item, "attempt") ?? "";
    const numbers = Array.from({ length: count(item, "parts") }, (_, i) => i + 1);
    const parts = await inGroups(numbers, PARTS_AT_ONCE, async (n) => {
      const read = await partCall("GetItem", { TableName, Key: partKey(account, name, attempt, n), ConsistentRead: true });
      return text(itemIn(read, "Item"), "data");
    });
    if (parts.some((part) => part === undefined)) return null;
    const response = parseJson([text(item, "response"), ...parts].join(""));
    return isRecord(response) ? (response as unknown as StoredResponse) : null;
  };

  /** The answers counted for the last 25 hours, and when the oldest counted hour leaves the count. */
  const answers = async (account: string, nowMs: number): Promise<{ n: number; freesAt: number }> => {
    const { Items } = await call("Query", {
      TableName,
      ConsistentRead: true,
      KeyConditionExpression: "pk = :pk AND sk BETWEEN :from AND :to",
      ExpressionAttributeValues: { ":pk": S(`idemcount#${account}`), ":from": S(hourKey(nowMs - 24 * HOUR_MS)), ":to": S(hourKey(nowMs)) },
    });
    const hours = (Array.isArray(Items) ? Items : []).filter(isRecord).filter((item) => count(item, "n") > 0);
    const n = hours.reduce((sum, item) => sum + count(item, "n"), 0);
    const oldest = text(hours[0], "sk");
    return { n, freesAt: oldest ? Date.parse(`${oldest.slice(2)}:00:00Z`) + 25 * HOUR_MS : nowMs };
  };

  /** The condition that `attempt` holds the record in progress for this request. */
  const heldBy = (fingerprint: string, attempt: string) => ({
    ConditionExpression: "#state = :inProgress AND fingerprint = :fingerprint AND attempt = :attempt",
    ExpressionAttributeNames: { "#state": "state" }, // a reserved word
    ExpressionAttributeValues: { ":inProgress": S("in_progress"), ":fingerprint": S(fingerprint), ":attempt": S(attempt) },
  });

  const abandon = (account: string, name: string, fingerprint: string, attempt: string) =>
    conditional(call("DeleteItem", { TableName, Key: recordKey(account, name), ...heldBy(fingerprint, attempt) }));

  return {
    async begin(account, name, fingerprint, attempt, now, leaseMs, maxStored): Promise<IdempotencyBegin> {
      const nowMs = now.getTime();
      // A record that vanishes (abandoned) or lapses between the write and the read: try again.
      for (let tries = 0; tries < 5; tries++) {
        if (await tryStart(account, name, fingerprint, attempt, nowMs + leaseMs, nowMs)) {
          // Counted after the start, so a replay (the common repeat) costs no count.
          const held = await answers(account, nowMs);
          if (held.n < maxStored) return { state: "started" };
          await abandon(account, name, fingerprint, attempt);
          return { state: "full", stored: held.n, freesAt: held.freesAt };
        }
        const item = await getItem(recordKey(account, name));
        if (!item || count(item, "until_ms") <= nowMs) continue;
        if (text(item, "fingerprint") !== fingerprint) return { state: "conflict" };
        if (text(item, "state") !== "completed") return { state: "in_progress" };
        const response = await answerOf(account, name, item);
        if (response) return { state: "completed", response };
        // Its parts went while they were read: the record was replaced, try again.
      }
      return { state: "in_progress" };
    },
    async complete(account, name, fingerprint, attempt, response, now, ttlMs) {
      const untilMs = now.getTime() + ttlMs;
      const expires = N(Math.ceil(untilMs / 1000));
      // Parts are written only by the attempt holding the record: a stale one learns it before it
      // writes megabytes, and a second completion by the attempt that completed never overwrites its
      // answer's parts (then dropped as refused ones). Only the holder completes, once per attempt.
      const held = await getItem(recordKey(account, name));
      if (text(held, "state") !== "in_progress" || text(held, "attempt") !== attempt) return false;
      const [head = "", ...rest] = partsOf(JSON.stringify(response), PART_BYTES);
      await inGroups(rest, PARTS_AT_ONCE, (data, i) =>
        partCall("PutItem", { TableName, Item: { ...partKey(account, name, attempt, i + 1), data: S(data), expires_at: expires } }),
      );
      // Only over the record this attempt holds: one a retry took over, or another body's, is not ours.
      const replaced = await putRecord({
        Item: {
          ...recordKey(account, name),
          state: S("completed"),
          fingerprint: S(fingerprint),
          until_ms: N(untilMs),
          response: S(head),
          attempt: S(attempt),
          parts: N(rest.length),
          expires_at: expires,
        },
        ...heldBy(fingerprint, attempt),
      });
      if (replaced === null) {
        // Not kept: this attempt's parts go. (Kept, it replaced its own in-progress record: no parts.)
        await dropParts(account, name, { attempt: S(attempt), parts: N(rest.length) });
        return false;
      }
      await call("UpdateItem", {
        TableName,
        Key: key(`idemcount#${account}`, hourKey(now.getTime())),
        UpdateExpression: "ADD n :one SET expires_at = :expires",
        ExpressionAttributeValues: { ":one": N(1), ":expires": N(Math.ceil((now.getTime() + 26 * HOUR_MS) / 1000)) },
      });
      return true;
    },
    async abandon(account, name, fingerprint, attempt) {
      await abandon(account, name, fingerprint, attempt);
    },
    async stored(account, now) {
      return (await answers(account, now.getTime())).n;
    },
  };
}
