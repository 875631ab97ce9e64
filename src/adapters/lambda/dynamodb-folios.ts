// Folio ledgers in the DynamoDB table: one item per account, issuer and type,
//
//   pk                    sk       attributes
//   folios#<ledger id>    ledger   state (the ledger's JSON, CAF files sealed), version
//
// changed only by a PutItem conditional on the version it read (optimistic concurrency): of two
// concurrent allocations one writes, the other reads again and takes the next folios. No folio is
// handed out twice, and an allocation that was answered was written first.
import type { FolioLedgerStore } from "../../ports/stores.ts";
import { ledgerStore, parseLedger } from "../folio-ledger.ts";
import { type Call, conditional, count, type GetItem, key, N, S, text } from "./dynamodb-wire.ts";

/**
 * How long one call keeps retrying lost races before it gives up (each lost race means another call
 * was served): inside API Gateway's 29 s. A count of tries ran out first on a starved machine, where
 * each read and write takes longer and races are lost more often (40 tries, 50 writers, CPU busy).
 */
const RETRY_FOR_MS = 20_000;

/**
 * The wait after a lost race: random up to a bound that doubles with each loss (5 ms, 10 ms, … up to
 * 500 ms), so N writers on one ledger spread out until about one at a time reads and writes it. A
 * bound that grew by 2 ms to 50 ms kept 50 writers colliding: 25 reads and writes per write that
 * landed, each a whole ledger, against about 8 with a doubling one (50 concurrent calls on a local table).
 */
const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(500, 5 * 2 ** attempt)));

export function dynamoFolioLedgerStore(call: Call, TableName: string, getItem: GetItem): FolioLedgerStore {
  return ledgerStore(async (id, work, writes) => {
    const itemKey = key(`folios#${id}`, "ledger");
    const until = Date.now() + RETRY_FOR_MS;
    for (let attempt = 0; Date.now() < until; attempt++) {
      const item = await getItem(itemKey);
      const version = count(item, "version");
      const state = parseLedger(text(item, "state"));
      const result = work(state);
      if (!writes) return result;
      const written = await conditional(
        call("PutItem", {
          TableName,
          Item: { ...itemKey, state: S(JSON.stringify(state)), version: N(version + 1) },
          ConditionExpression: item ? "version = :version" : "attribute_not_exists(pk)",
          ...(item ? { ExpressionAttributeValues: { ":version": N(version) } } : {}),
        }),
      );
      if (written) return result;
      await pause(attempt);
    }
    throw new Error(`folio ledger: concurrent writers got there first for ${RETRY_FOR_MS / 1000} s; try again`);
  });
}
