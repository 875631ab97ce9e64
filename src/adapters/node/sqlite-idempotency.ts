// The SQLite Idempotency-Key records (the file's `idempotency` table, sqlite-database.ts).
import type { DatabaseSync } from "node:sqlite";
import type { IdempotencyBegin, IdempotencyStore, StoredResponse } from "../../ports/stores.ts";
import { PURGE_BATCH, purgeSchedule } from "../idempotency-expiry.ts";
import { transaction } from "./sqlite-database.ts";

interface IdemRow {
  fingerprint: string;
  state: string;
  until: number;
  response: string | null;
}

export function sqliteIdempotencyStore(db: DatabaseSync): IdempotencyStore {
  const read = db.prepare("SELECT fingerprint, state, until, response FROM idempotency WHERE account = ? AND key = ?");
  const start = db.prepare(
    "INSERT OR REPLACE INTO idempotency (account, key, fingerprint, state, until, response, attempt) VALUES (?, ?, ?, 'in_progress', ?, NULL, ?)",
  );
  // Conditional on the attempt holding the record: one whose lease a retry took over completes nothing.
  const finish = db.prepare(
    "UPDATE idempotency SET state = 'completed', until = ?, response = ? WHERE account = ? AND key = ? AND fingerprint = ? AND attempt = ? AND state = 'in_progress'",
  );
  // Both read the idempotency_answers index: the cost follows the account's own answers only.
  const answers = db.prepare(
    "SELECT COUNT(*) AS n, MIN(until) AS first FROM idempotency WHERE account = ? AND state = 'completed' AND until > ?",
  );
  const drop = db.prepare(
    "DELETE FROM idempotency WHERE account = ? AND key = ? AND fingerprint = ? AND attempt = ? AND state = 'in_progress'",
  );
  // The idempotency_expiry index finds the batch; the cost is bounded by PURGE_BATCH, not the table.
  const purge = db.prepare(`DELETE FROM idempotency WHERE rowid IN (SELECT rowid FROM idempotency WHERE until <= ? LIMIT ${PURGE_BATCH})`);
  const purgeDue = purgeSchedule();
  return {
    async begin(account, key, fingerprint, attempt, now, leaseMs, maxStored): Promise<IdempotencyBegin> {
      const begun = transaction(db, (): IdempotencyBegin => {
        const row = read.get(account, key) as IdemRow | undefined;
        if (!row || row.until <= now.getTime()) {
          const held = answers.get(account, now.getTime()) as { n: number; first: number | null };
          if (held.n >= maxStored) return { state: "full", stored: held.n, freesAt: held.first ?? now.getTime() };
          start.run(account, key, fingerprint, now.getTime() + leaseMs, attempt);
          return { state: "started" };
        }
        if (row.fingerprint !== fingerprint) return { state: "conflict" };
        if (row.state === "completed" && row.response) {
          return { state: "completed", response: JSON.parse(row.response) as StoredResponse };
        }
        return { state: "in_progress" };
      });
      if (begun.state === "started" && purgeDue()) purge.run(now.getTime());
      return begun;
    },
    async complete(account, key, fingerprint, attempt, response, now, ttlMs) {
      return Number(finish.run(now.getTime() + ttlMs, JSON.stringify(response), account, key, fingerprint, attempt).changes) === 1;
    },
    async abandon(account, key, fingerprint, attempt) {
      drop.run(account, key, fingerprint, attempt);
    },
    async stored(account, now) {
      return (answers.get(account, now.getTime()) as { n: number }).n;
    },
  };
}
