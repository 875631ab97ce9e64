// Jobs and events in the DynamoDB table (layout in dynamodb-stores.ts), with single-item conditional
// writes only (no transactions: dynalite has none). The invariants are JobStore's (src/ports/jobs.ts):
//
// - The job item is the only arbiter. A lease, a finish and a change are one UpdateItem on it,
//   conditional on the `version` read (a lease also on `lease_until <= now`): of two writers one wins.
// - A state change and its events are one write: the job's UpdateItem also stores them (ids drawn) in the
//   item's `outbox`. They are then copied to the feed: each event is put at the account's next free
//   sequence with `attribute_not_exists` (a slot is tried only after the one below it was seen taken, so
//   sequences have no gap; a slot already holding the event's id is that event, so none is put twice),
//   the counter is raised, the live entry released, and the outbox cleared (conditional on its version).
//   No write to the job is accepted over a non-empty outbox, so a crash anywhere in the copy is finished
//   by whoever sees the outbox next: `lease` (a due job), `finish`/`change` (the job), or `events` (the
//   account), which finds such jobs through a marker item put before the write and deleted after it.
// - Due jobs are found through pointer items under one key (`jobdue`), sorted by due. A job's pointer is
//   put before the write that gives it that due and deleted after the write that takes it away, so a job
//   with a due always has one; a stale pointer (a lost write, a crash before its deletion) is deleted by
//   `lease` once the job's version shows that no write in flight can still give it that due.
// - One live job per subject and at most `maxLive` per account: one item per account maps each live
//   subject to its job, claimed by one conditional UpdateItem (`attribute_not_exists(live.#s) AND
//   size(live) < :max`). The job item is put first, marked `pending` (answered by nobody); the claim
//   makes it the subject's job, and anyone who finds it named by the map and still pending adopts it
//   (rolls the creation forward). An entry whose job ended (a crash before its release) is released by
//   the next creation that finds it in the way.
// - An account's jobs are listed through entries sorted by creation (`jobat#`), put with the job and read
//   backwards; the state is always the job item's, and an entry whose job is gone is deleted on the way.
// - A job's result pieces are one item each (`jobresult#<account>`, a partition of their own: a download's
//   large writes do not take the job items' throughput), erased by the TTL; a read checks `expires` itself.

import { randomName } from "../../lib/random-name.ts";
import {
  EVENT_KEPT_MS,
  type EventRecord,
  type EventType,
  JOB_KEPT_MS,
  type JobQueue,
  type JobRecord,
  type JobState,
  type JobStore,
  type JobUpdate,
  LIVE_JOB_STATES,
  type NewEvent,
} from "../../ports/jobs.ts";
import { inGroups } from "../idempotency-parts.ts";
import {
  type AttributeValue,
  type Call,
  conditional,
  count,
  type GetItem,
  isRecord,
  type Json,
  key,
  N,
  parseJson,
  S,
  text,
} from "./dynamodb-wire.ts";

/**
 * After this, a writer that left a pending job, a marker or a pointer without finishing its write is gone
 * (a Lambda runs at most 15 minutes), so what it left may be removed without racing it.
 */
const WRITER_GONE_MS = 15 * 60_000;
/** Pointer pages (100 each) one `lease` or `nextDue` reads at most: bounded work, the next round reads on. */
const MAX_POINTER_PAGES = 10;
/** Job reads at once when a full account's live entries are checked. */
const READS_AT_ONCE = 25;

/** The events of an accepted write not yet in the feed, and what else that write left to do. */
interface Outbox {
  /** The job's version the write gave it. */
  version: number;
  /** The account's counter when the write was made: every event of this outbox goes above it. */
  from: number;
  events: Omit<EventRecord, "sequence">[];
  /** What the write ended: the subject's live entry to release, and the job's list entry to expire with it; or null. */
  release: { subject: string; listed: string; at: number } | null;
}

/** A job item as read. */
interface Stored {
  job: JobRecord;
  /** Put by a creation that has not claimed its subject yet: nobody's job until it is adopted. */
  pending: boolean;
  outbox: Outbox | null;
}

const LIVE: readonly JobState[] = LIVE_JOB_STATES;

/** A job item's record (version and lease from their own attributes, which conditions read), or null. */
function storedOf(item: Json | undefined): Stored | null {
  const fields = parseJson(text(item, "job"));
  if (!item || !isRecord(fields)) return null;
  const job = { ...(fields as unknown as JobRecord), version: count(item, "version"), lease_until: count(item, "lease_until") };
  const outbox = parseJson(text(item, "outbox"));
  return { job, pending: item.pending !== undefined, outbox: isRecord(outbox) ? (outbox as unknown as Outbox) : null };
}
const pad = (n: number, width: number) => String(n).padStart(width, "0");
const seconds = (ms: number) => N(Math.ceil(ms / 1000));

export function dynamoJobStore(call: Call, TableName: string, getItem: GetItem): JobStore & JobQueue {
  const jobKey = (account: string, id: string) => key(`job#${account}`, id);
  const liveKey = (account: string) => key(`joblive#${account}`, "live");
  const markerKey = (account: string, id: string) => key(`jobout#${account}`, id);
  const counterKey = (account: string) => key(`evtseq#${account}`, "last");
  const eventKey = (account: string, sequence: number) => key(`evt#${account}`, pad(sequence, 12));
  /** An event's sequence by its id (for `event`), put by every copy of its outbox, so a copy a crash cut short is completed by the next. */
  const eventIdKey = (account: string, id: string) => key(`evtid#${account}`, id);
  const pointerKey = (due: number, account: string, id: string) => key("jobdue", `${pad(due, 15)}#${account}#${id}`);
  const listed = (job: JobRecord) => `${pad(job.created_at, 15)}#${job.id}`;
  const listKey = (account: string, sk: string) => key(`jobat#${account}`, sk);
  const pieceKey = (account: string, id: string, attempt: number, index: number) =>
    key(`jobresult#${account}`, `${id}#${pad(attempt, 12)}#${pad(index, 6)}`);

  /** Every item of a Query, page after page (consistent). */
  const queryAll = async (body: Json): Promise<Json[]> => {
    const items: Json[] = [];
    let start: unknown;
    do {
      const page = await call("Query", { TableName, ConsistentRead: true, ...body, ...(start ? { ExclusiveStartKey: start } : {}) });
      if (Array.isArray(page.Items)) items.push(...page.Items.filter(isRecord));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  };

  const read = async (account: string, id: string): Promise<Stored | null> => storedOf(await getItem(jobKey(account, id)));

  const eventOf = (account: string, item: Json): EventRecord => ({
    id: text(item, "id") ?? "",
    account,
    type: text(item, "type") as EventType,
    created_at: count(item, "created_at"),
    sequence: Number(text(item, "sk")),
    data: parseJson(text(item, "data")) as EventRecord["data"],
  });

  const liveMap = async (account: string): Promise<Record<string, string> | null> => {
    const item = await getItem(liveKey(account));
    const live = item?.live;
    if (!isRecord(live) || !isRecord(live.M)) return null;
    return Object.fromEntries(Object.entries(live.M).map(([subject, v]) => [subject, isRecord(v) ? String(v.S) : ""]));
  };

  /** Rolls a creation forward: the map names the job, so it is the subject's job. */
  const adopt = (account: string, id: string) =>
    conditional(
      call("UpdateItem", {
        TableName,
        Key: jobKey(account, id),
        UpdateExpression: "REMOVE pending, expires_at",
        ConditionExpression: "attribute_exists(pending)",
      }),
    );

  /** A pending job is answered only once the map names it (then it is adopted on the way). */
  const visible = async (account: string, stored: Stored | null, live?: Record<string, string> | null): Promise<JobRecord | null> => {
    if (!stored) return null;
    if (!stored.pending) return stored.job;
    const map = live === undefined ? await liveMap(account) : live;
    if (map?.[stored.job.subject] !== stored.job.id) return null;
    await adopt(account, stored.job.id);
    return stored.job;
  };

  const putPointer = (account: string, id: string, due: number, target: number, now: number) =>
    call("PutItem", { TableName, Item: { ...pointerKey(due, account, id), target: N(target), at: N(now) } });

  /** Deletes a pointer unless a writer of a later version has put it again. */
  const dropPointer = (account: string, id: string, due: number, upTo: number) =>
    conditional(
      call("DeleteItem", {
        TableName,
        Key: pointerKey(due, account, id),
        ConditionExpression: "attribute_not_exists(pk) OR target <= :v",
        ExpressionAttributeValues: { ":v": N(upTo) },
      }),
    );

  const release = (account: string, subject: string, id: string) =>
    conditional(
      call("UpdateItem", {
        TableName,
        Key: liveKey(account),
        UpdateExpression: "REMOVE live.#s",
        ConditionExpression: "live.#s = :id",
        ExpressionAttributeNames: { "#s": subject },
        ExpressionAttributeValues: { ":id": S(id) },
      }),
    );

  /** Puts each event at the first free sequence above what it finds (or finds it already there). */
  const place = async (account: string, outbox: Outbox): Promise<EventRecord[]> => {
    let cursor = outbox.from;
    const seen = new Map<string, number>();
    const above = await queryAll({
      KeyConditionExpression: "pk = :pk AND sk > :from",
      ExpressionAttributeValues: { ":pk": S(`evt#${account}`), ":from": S(pad(outbox.from, 12)) },
      ProjectionExpression: "sk, id",
    });
    for (const item of above) {
      const sequence = Number(text(item, "sk"));
      seen.set(text(item, "id") ?? "", sequence);
      cursor = Math.max(cursor, sequence);
    }
    const written: EventRecord[] = [];
    for (const event of outbox.events) {
      let sequence = seen.get(event.id);
      while (sequence === undefined) {
        const slot = cursor + 1;
        const put = await conditional(
          call("PutItem", {
            TableName,
            Item: {
              ...eventKey(account, slot),
              id: S(event.id),
              type: S(event.type),
              created_at: N(event.created_at),
              data: S(JSON.stringify(event.data)),
              expires_at: seconds(event.created_at + EVENT_KEPT_MS),
            },
            ConditionExpression: "attribute_not_exists(pk)",
          }),
        );
        if (put || text(await getItem(eventKey(account, slot)), "id") === event.id) sequence = slot;
        cursor = slot;
      }
      cursor = Math.max(cursor, sequence);
      await call("PutItem", {
        TableName,
        Item: { ...eventIdKey(account, event.id), sequence: N(sequence), expires_at: seconds(event.created_at + EVENT_KEPT_MS) },
      });
      written.push({ ...event, sequence });
    }
    return written;
  };

  /** Finishes an accepted write's outbox: its events into the feed, the counter, the release; then clears it. */
  const flush = async (account: string, id: string, outbox: Outbox): Promise<EventRecord[]> => {
    const written = await place(account, outbox);
    const last = Math.max(0, ...written.map((e) => e.sequence));
    if (last)
      await conditional(
        call("UpdateItem", {
          TableName,
          Key: counterKey(account),
          UpdateExpression: "SET #last = :n",
          ConditionExpression: "attribute_not_exists(#last) OR #last < :n",
          ExpressionAttributeNames: { "#last": "last" },
          ExpressionAttributeValues: { ":n": N(last) },
        }),
      );
    if (outbox.release) {
      await release(account, outbox.release.subject, id);
      await call("UpdateItem", {
        TableName,
        Key: listKey(account, outbox.release.listed),
        UpdateExpression: "SET expires_at = :expires",
        ExpressionAttributeValues: { ":expires": seconds(outbox.release.at + JOB_KEPT_MS) },
      });
    }
    await conditional(
      call("UpdateItem", {
        TableName,
        Key: jobKey(account, id),
        UpdateExpression: "REMOVE outbox, outbox_v",
        ConditionExpression: "outbox_v = :v",
        ExpressionAttributeValues: { ":v": N(outbox.version) },
      }),
    );
    await conditional(
      call("DeleteItem", {
        TableName,
        Key: markerKey(account, id),
        ConditionExpression: "v <= :v",
        ExpressionAttributeValues: { ":v": N(outbox.version) },
      }),
    );
    return written;
  };

  /**
   * Writes `update` and `events` over `job` as read (its version), releasing any lease: the job's new
   * state and its events, or null when another write came first.
   */
  const write = async (
    job: JobRecord,
    update: JobUpdate,
    news: NewEvent[],
    now: number,
  ): Promise<{ job: JobRecord; events: EventRecord[] } | null> => {
    const { account, id } = job;
    const target = job.version + 1;
    const { input, ...fields } = update;
    const next: JobRecord = { ...job, ...fields, input: input ?? job.input, updated_at: now, lease_until: 0, version: target };
    // The pointer first: from the write on, a job with a due can be found.
    if (next.due !== null && next.due !== job.due) await putPointer(account, id, next.due, target, now);
    const ends = LIVE.includes(job.estado) && !LIVE.includes(next.estado);
    let outbox: Outbox | null = null;
    if (news.length || ends) {
      const from = count(await getItem(counterKey(account)), "last");
      const events = news.map((event) => ({
        id: randomName("evt"),
        account,
        type: event.type,
        created_at: now,
        data: { ...event.data, job_id: id },
      }));
      outbox = { version: target, from, events, release: ends ? { subject: job.subject, listed: listed(job), at: now } : null };
      await call("PutItem", { TableName, Item: { ...markerKey(account, id), v: N(target), at: N(now) } });
    }
    const { version: _v, lease_until: _l, ...stored } = next;
    const values: Record<string, AttributeValue> = {
      ":job": S(JSON.stringify(stored)),
      ":target": N(target),
      ":seen": N(job.version),
      ":zero": N(0),
    };
    const sets = ["job = :job", "version = :target", "lease_until = :zero"];
    const removes: string[] = [];
    if (outbox) {
      sets.push("outbox = :outbox", "outbox_v = :target");
      values[":outbox"] = S(JSON.stringify(outbox));
    }
    if (LIVE.includes(next.estado)) removes.push("expires_at");
    else {
      sets.push("expires_at = :expires");
      values[":expires"] = seconds(now + JOB_KEPT_MS);
    }
    const body = {
      TableName,
      Key: jobKey(account, id),
      UpdateExpression: `SET ${sets.join(", ")}${removes.length ? ` REMOVE ${removes.join(", ")}` : ""}`,
      ConditionExpression: "version = :seen AND attribute_not_exists(outbox) AND attribute_not_exists(pending)",
      ExpressionAttributeValues: values,
    };
    let accepted = await conditional(call("UpdateItem", body));
    if (!accepted) {
      // The version may still be ours behind an outbox a crash left: finish that one, then try again.
      const current = await read(account, id);
      if (current?.job.version === job.version && current.outbox) {
        await flush(account, id, current.outbox);
        accepted = await conditional(call("UpdateItem", body));
      }
    }
    if (!accepted) return null;
    if (job.due !== null && job.due !== next.due) await dropPointer(account, id, job.due, target);
    return { job: next, events: outbox ? await flush(account, id, outbox) : [] };
  };

  /** Removes a creation that did not claim its subject (it was answered otherwise, or its writer is gone). */
  const drop = async (job: JobRecord) => {
    const gone = await conditional(
      call("DeleteItem", { TableName, Key: jobKey(job.account, job.id), ConditionExpression: "attribute_exists(pending)" }),
    );
    if (gone) await call("DeleteItem", { TableName, Key: listKey(job.account, listed(job)) });
    if (job.due !== null) await dropPointer(job.account, job.id, job.due, job.version);
  };

  /** The pointers due by `before` (all when undefined), oldest first, page by page. */
  async function* pointers(before?: number) {
    let start: unknown;
    for (let page = 0; page < MAX_POINTER_PAGES; page++) {
      const result = await call("Query", {
        TableName,
        ConsistentRead: true,
        Limit: 100,
        KeyConditionExpression: before === undefined ? "pk = :pk" : "pk = :pk AND sk < :upper",
        ExpressionAttributeValues: {
          ":pk": S("jobdue"),
          ...(before === undefined ? {} : { ":upper": S(pad(before + 1, 15)) }),
        },
        ...(start ? { ExclusiveStartKey: start } : {}),
      });
      for (const item of Array.isArray(result.Items) ? result.Items.filter(isRecord) : []) {
        const parts = (text(item, "sk") ?? "").split("#");
        const due = Number(parts[0]);
        const id = parts.at(-1) ?? "";
        const account = parts.slice(1, -1).join("#");
        yield { due, account, id, target: count(item, "target"), at: count(item, "at") };
      }
      start = result.LastEvaluatedKey;
      if (!start) return;
    }
  }

  /** Finishes the accepted writes whose copy a crash cut short: the feed then holds every accepted event. */
  const flushMarkers = async (account: string, now: number) => {
    const markers = await queryAll({ KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": S(`jobout#${account}`) } });
    for (const marker of markers) {
      const id = text(marker, "sk") ?? "";
      const v = count(marker, "v");
      const stored = await read(account, id);
      if (stored?.outbox) await flush(account, id, stored.outbox);
      else if (!stored || stored.job.version >= v || count(marker, "at") < now - WRITER_GONE_MS)
        await conditional(
          call("DeleteItem", {
            TableName,
            Key: markerKey(account, id),
            ConditionExpression: "v = :v",
            ExpressionAttributeValues: { ":v": N(v) },
          }),
        );
    }
  };

  /** The account's live jobs through its live map (each read from its job), whose subject begins with `prefix`. */
  const liveJobs = async (account: string, prefix: string): Promise<JobRecord[]> => {
    const map = (await liveMap(account)) ?? {};
    const entries = Object.entries(map).filter(([subject]) => subject.startsWith(prefix));
    const found = await inGroups(entries, READS_AT_ONCE, async ([, id]) => visible(account, await read(account, id), map));
    return found.filter((job): job is JobRecord => job !== null && LIVE.includes(job.estado));
  };

  return {
    async create(job, maxLive) {
      const { account } = job;
      await call("PutItem", {
        TableName,
        Item: {
          ...jobKey(account, job.id),
          job: S(JSON.stringify({ ...job, version: undefined, lease_until: undefined })),
          version: N(job.version),
          lease_until: N(job.lease_until),
          pending: N(1),
          // A creation whose writer died before its claim is removed by the TTL, if nobody did first.
          expires_at: seconds(job.created_at + 24 * 3600_000),
        },
        ConditionExpression: "attribute_not_exists(pk)",
      });
      // Its list entry (newest first by its sort key) and its pointer, before anyone can answer it.
      await call("PutItem", { TableName, Item: listKey(account, listed(job)) });
      if (job.due !== null) await putPointer(account, job.id, job.due, job.version, job.created_at);
      for (let tries = 0; tries < 20; tries++) {
        const claimed = await conditional(
          call("UpdateItem", {
            TableName,
            Key: liveKey(account),
            UpdateExpression: "SET live.#s = :id",
            ConditionExpression: "attribute_not_exists(live.#s) AND size(live) < :max",
            ExpressionAttributeNames: { "#s": job.subject },
            ExpressionAttributeValues: { ":id": S(job.id), ":max": N(maxLive) },
          }),
        );
        if (claimed) {
          await adopt(account, job.id);
          return { state: "created", job };
        }
        const live = await liveMap(account);
        if (!live) {
          await conditional(
            call("PutItem", { TableName, Item: { ...liveKey(account), live: { M: {} } }, ConditionExpression: "attribute_not_exists(pk)" }),
          );
          continue;
        }
        const holder = live[job.subject];
        if (holder) {
          const other = await read(account, holder);
          if (other && LIVE.includes(other.job.estado)) {
            if (other.pending) await adopt(account, holder);
            await drop(job);
            return { state: "existing", job: other.job };
          }
          // Its job ended (or expired) and a crash kept it from releasing its subject.
          await release(account, job.subject, holder);
          continue;
        }
        const entries = Object.entries(live);
        // The map changed since the claim was tried (made, or a place freed): try again.
        if (entries.length < maxLive) continue;
        // Full: unless some entry's job ended without its release.
        const freed = await inGroups(entries, READS_AT_ONCE, async ([subject, id]) => {
          const other = await read(account, id);
          return other && LIVE.includes(other.job.estado) ? false : release(account, subject, id);
        });
        if (!freed.includes(true)) {
          await drop(job);
          return { state: "full", max: maxLive };
        }
      }
      throw new Error("job store: the account's live jobs kept changing while a job was created; try again");
    },

    async get(account, id) {
      return visible(account, await read(account, id));
    },

    async list(account, { estado, before, exceptKind, limit }) {
      if (limit <= 0) return [];
      let below: string | undefined;
      if (before) {
        const cursor = await visible(account, await read(account, before));
        if (!cursor) return [];
        below = listed(cursor);
      }
      // The list entries newest first, below the cursor's, each read from its job (the entry holds no state).
      const jobs: JobRecord[] = [];
      let start: unknown;
      do {
        const page = await call("Query", {
          TableName,
          ConsistentRead: true,
          ScanIndexForward: false,
          Limit: Math.min(100, Math.max(limit, 10)),
          KeyConditionExpression: below ? "pk = :pk AND sk < :below" : "pk = :pk",
          ExpressionAttributeValues: { ":pk": S(`jobat#${account}`), ...(below ? { ":below": S(below) } : {}) },
          ...(start ? { ExclusiveStartKey: start } : {}),
        });
        const entries = (Array.isArray(page.Items) ? page.Items.filter(isRecord) : []).map((item) => text(item, "sk") ?? "");
        const found = await inGroups(entries, READS_AT_ONCE, async (sk) => {
          const stored = await read(account, sk.slice(sk.indexOf("#") + 1));
          // Its job expired (the TTL): the entry goes too.
          if (!stored) await call("DeleteItem", { TableName, Key: listKey(account, sk) });
          return visible(account, stored);
        });
        for (const job of found) {
          if (job && (!estado || job.estado === estado) && job.kind !== exceptKind) jobs.push(job);
          if (jobs.length >= limit) return jobs;
        }
        start = page.LastEvaluatedKey;
      } while (start);
      return jobs;
    },

    async lease(now, leaseMs, limit) {
      const leased: JobRecord[] = [];
      if (limit <= 0) return leased;
      for await (const pointer of pointers(now)) {
        const { account, id, due } = pointer;
        let stored = await read(account, id);
        if (stored?.outbox) {
          await flush(account, id, stored.outbox);
          stored = await read(account, id);
        }
        if (stored?.pending && !(await visible(account, stored))) {
          if (pointer.at < now - WRITER_GONE_MS) await drop(stored.job);
          continue;
        }
        if (!stored || stored.job.due !== due) {
          // Stale, unless a write that gives the job this due may still land.
          if (!stored || stored.job.version >= pointer.target || pointer.at < now - WRITER_GONE_MS)
            await dropPointer(account, id, due, pointer.target);
          continue;
        }
        const { job } = stored;
        if (job.lease_until > now) continue;
        const taken = await conditional(
          call("UpdateItem", {
            TableName,
            Key: jobKey(account, id),
            UpdateExpression: "SET version = :next, lease_until = :until",
            ConditionExpression:
              "version = :seen AND lease_until <= :now AND attribute_not_exists(outbox) AND attribute_not_exists(pending)",
            ExpressionAttributeValues: { ":next": N(job.version + 1), ":until": N(now + leaseMs), ":seen": N(job.version), ":now": N(now) },
          }),
        );
        // A lost condition: another runner has it.
        if (taken) leased.push({ ...job, version: job.version + 1, lease_until: now + leaseMs });
        if (leased.length >= limit) break;
      }
      return leased;
    },

    async finish(job, update, news, now) {
      return (await write(job, update, news, now))?.events ?? null;
    },

    async change(account, id, from, update, news, now) {
      for (let tries = 0; tries < 20; tries++) {
        const stored = await read(account, id);
        const job = await visible(account, stored);
        if (!job) return { state: "not_found" };
        if (!from.includes(job.estado)) return { state: "refused", job };
        if (stored?.outbox) await flush(account, id, stored.outbox);
        // A lost write (a runner leased or finished it meanwhile): read it again and decide again.
        const written = await write(job, update, news, now);
        if (written) return { state: "changed", job: written.job, events: written.events };
      }
      throw new Error("job store: the job kept changing while it was changed; try again");
    },

    async events(account, { after, type, limit }, now) {
      await flushMarkers(account, now);
      const found: EventRecord[] = [];
      let start: unknown;
      do {
        const page = await call("Query", {
          TableName,
          ConsistentRead: true,
          Limit: Math.max(limit, 100),
          KeyConditionExpression: "pk = :pk AND sk > :after",
          ExpressionAttributeValues: { ":pk": S(`evt#${account}`), ":after": S(pad(Math.max(0, after), 12)) },
          ...(start ? { ExclusiveStartKey: start } : {}),
        });
        for (const item of Array.isArray(page.Items) ? page.Items.filter(isRecord) : []) {
          const event = eventOf(account, item);
          // The TTL is not exact: the age is checked here.
          if (event.created_at < now - EVENT_KEPT_MS || (type && event.type !== type)) continue;
          found.push(event);
          if (found.length >= limit) return found;
        }
        start = page.LastEvaluatedKey;
      } while (start);
      return found;
    },

    async event(account, id, now) {
      await flushMarkers(account, now);
      const sequence = count(await getItem(eventIdKey(account, id)), "sequence");
      const item = sequence ? await getItem(eventKey(account, sequence)) : undefined;
      if (!item || text(item, "id") !== id) return null;
      const event = eventOf(account, item);
      return event.created_at < now - EVENT_KEPT_MS ? null : event;
    },

    live: liveJobs,

    async wake(account, prefix, now) {
      let woken = 0;
      for (const job of await liveJobs(account, prefix)) {
        if (job.estado !== "pendiente" || job.lease_until > now || job.due === null || job.due <= now) continue;
        // A lost write: a runner leased it or a change came first; that write decides.
        if (
          await write(
            job,
            { estado: job.estado, progress: job.progress, sealed: job.sealed, due: now, runs: job.runs, error: job.error },
            [],
            now,
          )
        )
          woken++;
      }
      return woken;
    },

    async putResultPiece(account, id, attempt, index, sealed, expires) {
      // Under the 400 KB item limit: the piece (RESULT_PIECE_MAX_CHARS, ASCII) leaves 9 600 bytes, and the keys
      // (at most 2 048 + 1 024 bytes), the attribute names and the two numbers take some 3 100 at the very most.
      await call("PutItem", {
        TableName,
        Item: { ...pieceKey(account, id, attempt, index), sealed: S(sealed), expires: N(expires), expires_at: seconds(expires) },
      });
    },

    async resultPiece(account, id, attempt, index, now) {
      const item = await getItem(pieceKey(account, id, attempt, index));
      // The TTL erases it some time after it expired: until then the time is checked here.
      if (!item || count(item, "expires") <= now) return null;
      return text(item, "sealed") ?? null;
    },

    // Unchanged by result pieces: the TTL erases them, no round needs to wake for them.
    async nextDue() {
      let best: number | null = null;
      for await (const pointer of pointers()) {
        // Sorted by due: no later pointer can be earlier than what was found.
        if (best !== null && pointer.due >= best) break;
        const stored = await read(pointer.account, pointer.id);
        if (!stored || stored.job.due !== pointer.due) continue;
        const at = Math.max(pointer.due, stored.job.lease_until);
        best = best === null ? at : Math.min(best, at);
      }
      return best;
    },
  };
}
