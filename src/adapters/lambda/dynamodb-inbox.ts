// The inbox in the DynamoDB table (layout in dynamodb-stores.ts), with single-item conditional writes only
// (no transactions, as the rest of this adapter: dynalite, which the tests run on, has none). The
// invariants are InboxStore's (src/ports/inbox.ts):
//
// - The record item is the arbiter of its key: a first filing is a PutItem `attribute_not_exists` (or over an
//   expired record), a later write a PutItem on the version read; of two writers one wins.
// - Seqs are given by the inbox's counter item, one at a time: a claim (seq + 1 with the seq read, and the
//   claiming record named in the counter) is one conditional UpdateItem, made only while no other claim is
//   open; the claim is then finished (the list entry put, the record given its seq) and closed. Whoever finds
//   a claim open finishes it first, so a writer that died mid-way leaves nothing that the next one does not
//   complete, and a record is numbered once. A record put by a first filing is `pending` until numbered:
//   answered by nobody before that, and a read that finds it numbers it (its writer may be gone).
// - Versions come from the same counter (ADD, never given twice), so a key filed again after a delete or
//   expiry never repeats a version its earlier record had, and a write naming one loses.
// - The list is an entry per seq (`seq#…`, read backwards); the record answers it, and an entry whose record is
//   gone, or belongs to a later filing of its key, is deleted on the way. An entry's TTL is never below its
//   record's, so the TTL never takes a live record out of the list.
// - A record is put with `expires_at` (its expiry in seconds) for the table's TTL; every read checks `expires`.

import { randomHex } from "../../lib/crypto.ts";
import type { InboxKey, InboxPut, InboxStore, InboxWrite, ReceivedDocument } from "../../ports/inbox.ts";
import { inGroups } from "../idempotency-parts.ts";
import {
  type AttributeValue,
  type Call,
  conditional,
  count,
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

/** Digits of a list entry's seq: its sort key orders as the number does. */
const SEQ_WIDTH = 15;
/** Rounds of a numbering or a read that each lost to another writer before it gives up (each round is another writer's progress). */
const TRIES = 50;
/** Record reads at once for a page of the list. */
const READS_AT_ONCE = 25;

/** A seq given to a first filing whose record may not be numbered yet (held in the counter until finished). */
interface Claim {
  filing: string;
  sk: string;
  seq: number;
  /** The record's expiry when claimed: its list entry's TTL. */
  expires: number;
}

const pad = (n: number) => String(n).padStart(SEQ_WIDTH, "0");
const seconds = (ms: number) => N(Math.ceil(ms / 1000));
const names = (...attributes: string[]) => Object.fromEntries(attributes.map((a) => [`#${a}`, a]));

/** What a record holds but its XML: the list's reads (and the writes' checks) take no more. */
const STATE = ["emisor", "dte", "folio", "facts", "seq", "version", "created_at", "updated_at", "expires", "filing", "pending"];

/**
 * The XML as its ISO-8859-1 bytes (Binary), one byte a character where UTF-8 takes two above U+007F: the
 * longest XML stays under the 400 KB item limit whatever its accents. Text with a character above U+00FF
 * (never a decoded DTE) is kept as a String.
 */
const xmlAttribute = (xml: string | null): Record<string, AttributeValue> =>
  xml === null ? {} : /[\u0100-\uffff]/.test(xml) || xml === "" ? { xml_text: S(xml) } : { xml: { B: btoa(xml) } };

function xmlOf(item: Json): string | null {
  const binary = item.xml;
  if (isRecord(binary) && typeof binary.B === "string") return atob(binary.B);
  return text(item, "xml_text") ?? null;
}

function documentOf(account: string, receptor: string, item: Json, seq: number, withXml: boolean): ReceivedDocument {
  return {
    account,
    receptor,
    emisor: text(item, "emisor") ?? "",
    dte: count(item, "dte"),
    folio: count(item, "folio"),
    seq,
    facts: (parseJson(text(item, "facts")) ?? {}) as Record<string, unknown>,
    xml: withXml ? xmlOf(item) : null,
    created_at: count(item, "created_at"),
    updated_at: count(item, "updated_at"),
    expires: count(item, "expires"),
    version: count(item, "version"),
  };
}

export function dynamoInboxStore(call: Call, TableName: string, getItem: GetItem): InboxStore {
  const inboxOf = (account: string, receptor: string) => {
    // The receiver ends the partition key: with a "#" in it, two inboxes could share one.
    if (receptor.includes("#")) throw new RangeError(`inbox store: a receiver never holds "#" (${receptor})`);
    return `inbox#${account}#${receptor}`;
  };
  const docSk = (k: InboxKey) => `doc#${k.emisor}#${k.dte}#${k.folio}`;
  const entrySk = (seq: number) => `seq#${pad(seq)}`;
  const counterKey = (pk: string) => key(pk, "counter");

  /** A record's state without its XML (consistent). */
  const peek = async (pk: string, sk: string) =>
    itemIn(
      await call("GetItem", {
        TableName,
        Key: key(pk, sk),
        ConsistentRead: true,
        ProjectionExpression: STATE.map((a) => `#${a}`).join(", "),
        ExpressionAttributeNames: names(...STATE),
      }),
      "Item",
    );

  /** The inbox's next version: above every version any of its records ever had. */
  const nextVersion = async (pk: string) =>
    count(
      itemIn(
        await call("UpdateItem", {
          TableName,
          Key: counterKey(pk),
          UpdateExpression: "ADD #version :one",
          ExpressionAttributeNames: names("version"),
          ExpressionAttributeValues: { ":one": N(1) },
          ReturnValues: "UPDATED_NEW",
        }),
        "Attributes",
      ),
      "version",
    );

  const claimOf = (counter: Json | undefined): Claim | null => {
    const filing = text(counter, "claim");
    if (!filing) return null;
    return { filing, sk: text(counter, "claim_sk") ?? "", seq: count(counter, "seq"), expires: count(counter, "claim_expires") };
  };

  /** Completes a claim (idempotent: whoever finds it open may): the list entry, the record's seq, then the claim closed. */
  const finish = async (pk: string, claim: Claim) => {
    const record = await peek(pk, claim.sk);
    // Its record may be gone (deleted, or expired and filed again): the seq then stays unused.
    if (record && text(record, "filing") === claim.filing && record.pending !== undefined) {
      await conditional(
        call("PutItem", {
          TableName,
          Item: { ...key(pk, entrySk(claim.seq)), doc: S(claim.sk), filing: S(claim.filing), expires_at: seconds(claim.expires) },
          // Already there: put by another finisher, whose record's later writes may have raised its TTL.
          ConditionExpression: "attribute_not_exists(pk)",
        }),
      );
      await conditional(
        call("UpdateItem", {
          TableName,
          Key: key(pk, claim.sk),
          UpdateExpression: "SET #seq = :seq REMOVE #pending",
          ConditionExpression: "#filing = :filing AND attribute_exists(#pending)",
          ExpressionAttributeNames: names("seq", "pending", "filing"),
          ExpressionAttributeValues: { ":seq": N(claim.seq), ":filing": S(claim.filing) },
        }),
      );
    }
    await conditional(
      call("UpdateItem", {
        TableName,
        Key: counterKey(pk),
        UpdateExpression: "REMOVE #claim, #claim_sk, #claim_expires",
        ConditionExpression: "#claim = :filing",
        ExpressionAttributeNames: names("claim", "claim_sk", "claim_expires"),
        ExpressionAttributeValues: { ":filing": S(claim.filing) },
      }),
    );
  };

  /**
   * Numbers the pending record `filing` put at `sk` (once, whoever calls): its seq, or null when the record is
   * no longer that filing's (deleted before it was numbered, or expired and filed again).
   */
  const settle = async (pk: string, sk: string, filing: string): Promise<number | null> => {
    for (let tries = 0; tries < TRIES; tries++) {
      // The counter before the record: a claim for this filing finished after the counter was read shows in the record.
      const counter = await getItem(counterKey(pk));
      const open = claimOf(counter);
      if (open) {
        await finish(pk, open);
        if (open.filing === filing) return open.seq;
        continue;
      }
      const record = await peek(pk, sk);
      if (!record || text(record, "filing") !== filing) return null;
      if (record.pending === undefined) return count(record, "seq");
      const last = count(counter, "seq");
      const claim: Claim = { filing, sk, seq: last + 1, expires: count(record, "expires") };
      const claimed = await conditional(
        call("UpdateItem", {
          TableName,
          Key: counterKey(pk),
          UpdateExpression: "SET #seq = :next, #claim = :filing, #claim_sk = :sk, #claim_expires = :expires",
          ConditionExpression: `attribute_not_exists(#claim) AND ${last ? "#seq = :last" : "attribute_not_exists(#seq)"}`,
          ExpressionAttributeNames: names("seq", "claim", "claim_sk", "claim_expires"),
          ExpressionAttributeValues: {
            ":next": N(claim.seq),
            ":filing": S(filing),
            ":sk": S(sk),
            ":expires": N(claim.expires),
            ...(last ? { ":last": N(last) } : {}),
          },
        }),
      );
      if (claimed) {
        await finish(pk, claim);
        return claim.seq;
      }
    }
    throw new Error("inbox store: the inbox kept changing while a document was numbered; try again");
  };

  const recordItem = (pk: string, k: InboxKey, write: InboxWrite, created: number, now: number, version: number) => ({
    ...key(pk, docSk(k)),
    emisor: S(k.emisor),
    dte: N(k.dte),
    folio: N(k.folio),
    facts: S(JSON.stringify(write.facts)),
    ...xmlAttribute(write.xml),
    version: N(version),
    created_at: N(created),
    updated_at: N(now),
    expires: N(write.expires),
    expires_at: seconds(write.expires),
  });

  const written = (
    account: string,
    k: InboxKey,
    write: InboxWrite,
    seq: number,
    created: number,
    now: number,
    version: number,
  ): InboxPut => ({
    state: "written",
    document: {
      account,
      receptor: k.receptor,
      emisor: k.emisor,
      dte: k.dte,
      folio: k.folio,
      seq,
      facts: JSON.parse(JSON.stringify(write.facts)),
      xml: write.xml,
      created_at: created,
      updated_at: now,
      expires: write.expires,
      version,
    },
  });

  const fileFirst = async (account: string, k: InboxKey, write: InboxWrite, now: number): Promise<InboxPut> => {
    const pk = inboxOf(account, k.receptor);
    const sk = docSk(k);
    const version = await nextVersion(pk);
    const filing = randomHex(12);
    let replaced: Json | undefined;
    try {
      const put = await call("PutItem", {
        TableName,
        Item: { ...recordItem(pk, k, write, now, now, version), filing: S(filing), pending: N(1) },
        ConditionExpression: "attribute_not_exists(pk) OR #expires <= :now",
        ExpressionAttributeNames: names("expires"),
        ExpressionAttributeValues: { ":now": N(now) },
        ReturnValues: "ALL_OLD",
      });
      replaced = itemIn(put, "Attributes");
    } catch (err) {
      if (isConditionFailed(err)) return { state: "conflict" };
      throw err;
    }
    // It took the key of an expired record: that record's list entry goes (its seq is never given again).
    if (replaced?.seq !== undefined) await call("DeleteItem", { TableName, Key: key(pk, entrySk(count(replaced, "seq"))) });
    const seq = await settle(pk, sk, filing);
    // Deleted before it was numbered: as if the delete had come first.
    if (seq === null) return { state: "conflict" };
    return written(account, k, write, seq, now, now, version);
  };

  const writeOver = async (account: string, k: InboxKey, write: InboxWrite, expected: number, now: number): Promise<InboxPut> => {
    const pk = inboxOf(account, k.receptor);
    const record = await peek(pk, docSk(k));
    if (!record || record.pending !== undefined || count(record, "version") !== expected || count(record, "expires") <= now)
      return { state: "conflict" };
    const seq = count(record, "seq");
    const created = count(record, "created_at");
    // Its list entry's TTL first, raised only: the entry never expires before the record (a lost write leaves it
    // later than needed, which the list's reads of the record settle).
    await conditional(
      call("UpdateItem", {
        TableName,
        Key: key(pk, entrySk(seq)),
        UpdateExpression: "SET #expires_at = :at",
        ConditionExpression: "attribute_exists(pk) AND #expires_at < :at",
        ExpressionAttributeNames: names("expires_at"),
        ExpressionAttributeValues: { ":at": seconds(write.expires) },
      }),
    );
    const version = await nextVersion(pk);
    const put = await conditional(
      call("PutItem", {
        TableName,
        Item: { ...recordItem(pk, k, write, created, now, version), seq: N(seq), filing: S(text(record, "filing") ?? "") },
        ConditionExpression: "#version = :expected AND attribute_not_exists(#pending) AND #expires > :now",
        ExpressionAttributeNames: names("version", "pending", "expires"),
        ExpressionAttributeValues: { ":expected": N(expected), ":now": N(now) },
      }),
    );
    return put ? written(account, k, write, seq, created, now, version) : { state: "conflict" };
  };

  /** A list entry's document, or null: its record expired, or is gone (the entry is then deleted). */
  const entryDocument = async (account: string, receptor: string, pk: string, entry: Json, now: number) => {
    const entrySort = text(entry, "sk") ?? "";
    const seq = Number(entrySort.slice("seq#".length));
    const sk = text(entry, "doc") ?? "";
    const filing = text(entry, "filing") ?? "";
    const record = await peek(pk, sk);
    if (record && text(record, "filing") === filing) {
      // Its claim is open (its writer died, or is about to mark it): finished here.
      const numbered = record.pending === undefined ? count(record, "seq") : await settle(pk, sk, filing);
      if (numbered === seq) return count(record, "expires") > now ? documentOf(account, receptor, record, seq, false) : null;
      if (numbered === null) return null;
    }
    await call("DeleteItem", { TableName, Key: key(pk, entrySort) });
    return null;
  };

  return {
    async get(account, k, now) {
      const pk = inboxOf(account, k.receptor);
      const sk = docSk(k);
      for (let tries = 0; tries < TRIES; tries++) {
        const item = await getItem(key(pk, sk));
        // The TTL erases it some time after it expired: until then the time is checked here.
        if (!item || count(item, "expires") <= now) return null;
        if (item.pending === undefined) return documentOf(account, k.receptor, item, count(item, "seq"), true);
        // A first filing not numbered yet (in flight, or its writer died): numbered here, then answered.
        const seq = await settle(pk, sk, text(item, "filing") ?? "");
        if (seq !== null) return documentOf(account, k.receptor, item, seq, true);
      }
      throw new Error("inbox store: the document kept changing while it was read; try again");
    },

    put: (account, k, write, expected, now) =>
      expected === null ? fileFirst(account, k, write, now) : writeOver(account, k, write, expected, now),

    async list(account, receptor, { before, limit }, now) {
      const upper = before === undefined ? 10 ** SEQ_WIDTH - 1 : before - 1;
      if (limit <= 0 || upper < 1) return [];
      const pk = inboxOf(account, receptor);
      const found: ReceivedDocument[] = [];
      let start: unknown;
      do {
        const page = await call("Query", {
          TableName,
          ConsistentRead: true,
          ScanIndexForward: false,
          Limit: Math.min(100, limit - found.length),
          KeyConditionExpression: "pk = :pk AND sk BETWEEN :low AND :high",
          ExpressionAttributeValues: { ":pk": S(pk), ":low": S(entrySk(1)), ":high": S(entrySk(upper)) },
          ...(start ? { ExclusiveStartKey: start } : {}),
        });
        const entries = Array.isArray(page.Items) ? page.Items.filter(isRecord) : [];
        for (const doc of await inGroups(entries, READS_AT_ONCE, (entry) => entryDocument(account, receptor, pk, entry, now))) {
          if (doc) found.push(doc);
          if (found.length >= limit) return found;
        }
        start = page.LastEvaluatedKey;
      } while (start);
      return found;
    },

    async delete(account, k) {
      const pk = inboxOf(account, k.receptor);
      const old = itemIn(await call("DeleteItem", { TableName, Key: key(pk, docSk(k)), ReturnValues: "ALL_OLD" }), "Attributes");
      if (!old) return false;
      // Its list entry after it: a crash in between leaves an entry the list finds stale and deletes.
      if (old.seq !== undefined) await call("DeleteItem", { TableName, Key: key(pk, entrySk(count(old, "seq"))) });
      return true;
    },
  };
}
