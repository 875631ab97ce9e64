import type { IdempotencyBegin, IdempotencyStore, StoredResponse } from "../../ports.ts";
import { type Call, conditional, count, type GetItem, isRecord, type Json, key, N, parseJson, S, text } from "./dynamodb-wire.ts";

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

export function dynamoIdempotencyStore(call: Call, TableName: string, getItem: GetItem): IdempotencyStore {
  const recordKey = (account: string, name: string) => key(`idem#${account}`, name);

  const tryStart = (account: string, name: string, fingerprint: string, untilMs: number, nowMs: number) =>
    conditional(
      call("PutItem", {
        TableName,
        Item: {
          ...recordKey(account, name),
          state: S("in_progress"),
          fingerprint: S(fingerprint),
          until_ms: N(untilMs),
          expires_at: N(Math.ceil(untilMs / 1000)),
        },
        ConditionExpression: "attribute_not_exists(pk) OR until_ms <= :now",
        ExpressionAttributeValues: { ":now": N(nowMs) },
      }),
    );

  const parseResponse = (item: Json): StoredResponse | null => {
    const response = parseJson(text(item, "response"));
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

  const abandon = (account: string, name: string, fingerprint: string) =>
    conditional(
      call("DeleteItem", {
        TableName,
        Key: recordKey(account, name),
        ConditionExpression: "#state = :inProgress AND fingerprint = :fingerprint",
        ExpressionAttributeNames: { "#state": "state" }, // a reserved word
        ExpressionAttributeValues: { ":inProgress": S("in_progress"), ":fingerprint": S(fingerprint) },
      }),
    );

  return {
    async begin(account, name, fingerprint, now, leaseMs, maxStored): Promise<IdempotencyBegin> {
      const nowMs = now.getTime();
      // A record that vanishes (abandoned) or lapses between the write and the read: try again.
      for (let attempt = 0; attempt < 5; attempt++) {
        if (await tryStart(account, name, fingerprint, nowMs + leaseMs, nowMs)) {
          // Counted after the start, so a replay (the common repeat) costs no count.
          const held = await answers(account, nowMs);
          if (held.n < maxStored) return { state: "started" };
          await abandon(account, name, fingerprint);
          return { state: "full", stored: held.n, freesAt: held.freesAt };
        }
        const item = await getItem(recordKey(account, name));
        if (!item || count(item, "until_ms") <= nowMs) continue;
        if (text(item, "fingerprint") !== fingerprint) return { state: "conflict" };
        const response = text(item, "state") === "completed" ? parseResponse(item) : null;
        return response ? { state: "completed", response } : { state: "in_progress" };
      }
      return { state: "in_progress" };
    },
    async complete(account, name, fingerprint, response, now, ttlMs) {
      const untilMs = now.getTime() + ttlMs;
      // Only over this request's own record: a different body under the key is not ours to replace.
      const stored = await conditional(
        call("PutItem", {
          TableName,
          Item: {
            ...recordKey(account, name),
            state: S("completed"),
            fingerprint: S(fingerprint),
            until_ms: N(untilMs),
            response: S(JSON.stringify(response)),
            expires_at: N(Math.ceil(untilMs / 1000)),
          },
          ConditionExpression: "fingerprint = :fingerprint",
          ExpressionAttributeValues: { ":fingerprint": S(fingerprint) },
        }),
      );
      if (!stored) return;
      await call("UpdateItem", {
        TableName,
        Key: key(`idemcount#${account}`, hourKey(now.getTime())),
        UpdateExpression: "ADD n :one SET expires_at = :expires",
        ExpressionAttributeValues: { ":one": N(1), ":expires": N(Math.ceil((now.getTime() + 26 * HOUR_MS) / 1000)) },
      });
    },
    async abandon(account, name, fingerprint) {
      await abandon(account, name, fingerprint);
    },
    async stored(account, now) {
      return (await answers(account, now.getTime())).n;
    },
  };
}
