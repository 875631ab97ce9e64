// Lambda state in one DynamoDB table, spoken to through DynamoDB's JSON API with SigV4
// (aws4fetch): no SDK. Every read is strongly consistent, and every write that must be exact is a
// single-item conditional write, so the adapter also runs on DynamoDB-compatible servers without
// transactions (dynalite in the tests).
//
//   pk                    sk              attributes
//   token#<id>            token           record (TokenRecord JSON)
//   tokenhash#<hash>      token           id (lookup by hash, kept as an item rather than a GSI: GSIs are never consistent)
//   quota#<tokenId>       month#YYYY-MM   used (the month), d01 … d31 (each day of that month), expires_at
//   settings#<account>    <key>           value (JSON)
//   cache#<key>           cache           value, until_ms ("" = kept for good), expires_at
//   idem#<account>        <key>           state, fingerprint, until_ms, response (JSON), expires_at
//   idemcount#<account>   h#YYYY-MM-DDTHH n (answers completed in that UTC hour), expires_at
//   folios#<ledger id>    ledger          state, version (dynamodb-folios.ts)
//   job#<account>         <job id>        job (the record's JSON), version, lease_until, pending (created, subject
//                                         not yet claimed), outbox + outbox_v (an accepted write's events not yet
//                                         in the feed), expires_at (ended jobs)              (dynamodb-jobs.ts)
//   jobat#<account>       <created ms, 15 digits>#<job id>   expires_at once the job ended (the list, newest
//                                         first: a Query backwards; the job item answers its state)
//   joblive#<account>     live            live (map: subject -> its live job's id; its size is the live count)
//   jobdue                <due ms, 15 digits>#<account>#<job id>   target (the version that set it), at
//                                         (one key for every due pointer: the runner's Query, oldest first; a
//                                         job's step writes it about twice, so one partition's 1 000 writes a
//                                         second carry some 500 steps a second)
//   jobout#<account>      <job id>        v, at (a write with events in flight: `events` finishes its copy)
//   evt#<account>         <sequence, 12 digits>   id, type, created_at, data (JSON), expires_at
//   evtseq#<account>      last            last (the highest sequence given: numbers survive their events)
//   jobresult#<account>   <job id>#<attempt, 12 digits>#<index, 6 digits>   sealed, expires (ms), expires_at
//                                         (a job's result piece: a partition of its own, so its large writes
//                                         never slow the account's leases)
//   inbox#<account>#<receptor>   doc#<emisor>#<dte>#<folio>   emisor, dte, folio, facts (JSON), xml (Binary: the
//                                         ISO-8859-1 bytes) or xml_text, seq, version, created_at, updated_at,
//                                         expires (ms), expires_at, filing (its first filing's id), pending (filed,
//                                         not yet numbered: no seq)                           (dynamodb-inbox.ts)
//   inbox#<account>#<receptor>   seq#<seq, 15 digits>   doc (the record's sk), filing, expires_at (never below its
//                                         record's): the list, newest first (a Query backwards; the record answers)
//   inbox#<account>#<receptor>   counter   seq, version (the last given: neither is given again), claim, claim_sk,
//                                         claim_expires (a seq given whose record may not have it yet)
//
// `expires_at` (unix seconds) is there for a DynamoDB TTL on that attribute, which removes dead
// quota months, idempotency records and their hourly counts, events and ended jobs 30 days on,
// a job's result pieces and the inbox's records (and list entries) when they expire
// (createDynamoTable enables it). No read depends on it: each read compares `until_ms`, the hour or
// the event's age with the clock.
import type { InboxStore } from "../../ports/inbox.ts";
import type { JobQueue, JobStore } from "../../ports/jobs.ts";
import type { CacheStore, FolioLedgerStore, IdempotencyStore, QuotaStore, SettingsStore, TokenStore } from "../../ports/stores.ts";
import { dynamoCacheStore } from "./dynamodb-cache.ts";
import { dynamoFolioLedgerStore } from "./dynamodb-folios.ts";
import { dynamoIdempotencyStore } from "./dynamodb-idempotency.ts";
import { dynamoInboxStore } from "./dynamodb-inbox.ts";
import { dynamoJobStore } from "./dynamodb-jobs.ts";
import { dynamoQuotaStore } from "./dynamodb-quota.ts";
import { dynamoSettingsStore } from "./dynamodb-settings.ts";
import { dynamoTokenStore } from "./dynamodb-tokens.ts";
import { type DynamoConfig, dynamoClient, itemIn, type Key } from "./dynamodb-wire.ts";

export { createDynamoTable } from "./dynamodb-table.ts";
export { type DynamoConfig, DynamoError, isConditionFailed } from "./dynamodb-wire.ts";

export interface DynamoStores {
  tokens: TokenStore;
  quota: QuotaStore;
  settings: SettingsStore;
  idempotency: IdempotencyStore;
  cache: CacheStore;
  folios: FolioLedgerStore;
  /** Also the scheduled runner's queue (every account's due jobs). */
  jobs: JobStore & JobQueue;
  inbox: InboxStore;
}

export function createDynamoStores(config: DynamoConfig): DynamoStores {
  const call = dynamoClient(config);
  const TableName = config.table;
  const getItem = async (k: Key) => itemIn(await call("GetItem", { TableName, Key: k, ConsistentRead: true }), "Item");
  return {
    tokens: dynamoTokenStore(call, TableName, getItem),
    quota: dynamoQuotaStore(call, TableName, getItem),
    settings: dynamoSettingsStore(call, TableName, getItem),
    idempotency: dynamoIdempotencyStore(call, TableName, getItem),
    cache: dynamoCacheStore(call, TableName, getItem),
    folios: dynamoFolioLedgerStore(call, TableName, getItem),
    jobs: dynamoJobStore(call, TableName, getItem),
    inbox: dynamoInboxStore(call, TableName, getItem),
  };
}
