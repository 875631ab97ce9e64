// What every inbox store keeps (InboxStore, src/ports/inbox.ts), as tests any adapter runs:
// `inboxStoreContract(() => store)` in a describe block, and `inboxStoreProperty(() => store)`, which
// states the invariant in words and checks it under random interleavings of filings, increments,
// deletes and the clock. Each test names accounts of its own, so one store (a Durable Object namespace,
// a table) may serve them all.
import fc from "fast-check";
import { expect, it } from "vitest";
import { INBOX_XML_MAX_CHARS, type InboxKey, type InboxStore, type InboxWrite, type ReceivedDocument } from "../../src/ports/inbox.ts";

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
const DAY = 24 * 3600_000;
const R1 = "76192083-9";
const R2 = "77777777-7";

/** An account no other test names. */
export const freshAccount = () => `acct_${crypto.randomUUID().slice(0, 8)}`;

export const inboxKey = (folio: number, fields: Partial<InboxKey> = {}): InboxKey => ({
  receptor: R1,
  emisor: "96790240-3",
  dte: 33,
  folio,
  ...fields,
});

const writeOf = (facts: Record<string, unknown>, fields: Partial<InboxWrite> = {}): InboxWrite => ({
  facts,
  xml: `<DTE version="1.0"><Documento ID="F${String(facts.n ?? 0)}"/></DTE>`,
  expires: T0 + 400 * DAY,
  ...fields,
});

/** Writes `write` at `key` as a first filing and answers the document, failing the test on a conflict. */
async function file(store: InboxStore, account: string, key: InboxKey, write: InboxWrite, now = T0): Promise<ReceivedDocument> {
  const put = await store.put(account, key, write, null, now);
  if (put.state !== "written") throw new Error(`first filing of folio ${key.folio} was a conflict`);
  return put.document;
}

/** Every page of a receiver's list, `limit` at a time, following `before`. */
export async function listAll(store: InboxStore, account: string, receptor: string, now: number, limit = 2): Promise<ReceivedDocument[]> {
  const all: ReceivedDocument[] = [];
  let before: number | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const page = await store.list(account, receptor, { limit, ...(before === undefined ? {} : { before }) }, now);
    all.push(...page);
    if (page.length < limit) return all;
    before = page[page.length - 1]!.seq;
  }
  throw new Error("the list did not end");
}

/**
 * How a store erases expired records: in its later writes (SQLite, memory, a Durable Object), where `held`
 * counts the records it still holds for the account, raw; or by a table's TTL (DynamoDB), where `expiresAt`
 * reads the TTL attribute (unix seconds) of every item of the account's inboxes but their counters, raw.
 */
export type InboxErasure =
  | { by: "writes"; held?: (account: string) => Promise<number> }
  | { by: "ttl"; expiresAt: (account: string) => Promise<number[]> };

export function inboxStoreContract(make: () => Promise<InboxStore> | InboxStore, options: { erasure?: InboxErasure } = {}) {
  const erasure = options.erasure ?? { by: "writes" };

  it("numbers first filings 1, 2, 3 per inbox: another receiver and another account count apart", async () => {
    const store = await make();
    const [a, b] = [freshAccount(), freshAccount()];
    const seqs = async (account: string, keys: InboxKey[]) => {
      const out: number[] = [];
      for (const key of keys) out.push((await file(store, account, key, writeOf({ n: key.folio }))).seq);
      return out;
    };
    expect(await seqs(a, [inboxKey(10), inboxKey(11), inboxKey(12)])).toEqual([1, 2, 3]);
    expect(await seqs(a, [inboxKey(10, { receptor: R2 }), inboxKey(11, { receptor: R2 })])).toEqual([1, 2]);
    expect(await seqs(b, [inboxKey(10), inboxKey(11)])).toEqual([1, 2]);
    // The same folio of another issuer or type is another document.
    expect(await seqs(a, [inboxKey(10, { emisor: "11111111-1" }), inboxKey(10, { dte: 34 })])).toEqual([4, 5]);
    const doc = await store.get(a, inboxKey(11), T0);
    expect(doc).toEqual({
      account: a,
      ...inboxKey(11),
      seq: 2,
      facts: { n: 11 },
      xml: writeOf({ n: 11 }).xml,
      created_at: T0,
      updated_at: T0,
      expires: T0 + 400 * DAY,
      version: expect.any(Number),
    });
  });

  it("writes only over the version read: a stale version, or null over a record, is a conflict", async () => {
    const store = await make();
    const a = freshAccount();
    const key = inboxKey(1);
    expect(await store.put(a, key, writeOf({ n: 1 }), 7, T0)).toEqual({ state: "conflict" });
    const first = await file(store, a, key, writeOf({ n: 1 }));
    expect(await store.put(a, key, writeOf({ n: 2 }), null, T0 + 1)).toEqual({ state: "conflict" });
    const facts = { n: 2, emisor: { rut: "96790240-3", razon: "Ñandú S.A." }, eventos: [{ tipo: "ACD", at: "2026-12-02" }] };
    const second = await store.put(a, key, writeOf(facts, { xml: null, expires: T0 + 10 * DAY }), first.version, T0 + 5);
    expect(second.state).toBe("written");
    const written = second.state === "written" ? second.document : undefined;
    // The record keeps its seq and its creation; the write sets the rest and raises the version.
    expect(written).toEqual({ ...first, facts, xml: null, updated_at: T0 + 5, expires: T0 + 10 * DAY, version: expect.any(Number) });
    expect(written!.version).toBeGreaterThan(first.version);
    expect(await store.get(a, key, T0 + 5)).toEqual(written);
    // The version read before that write is stale now.
    expect(await store.put(a, key, writeOf({ n: 3 }), first.version, T0 + 6)).toEqual({ state: "conflict" });
    expect((await store.get(a, key, T0 + 6))?.facts).toEqual(facts);
  });

  it("a record filed again after its delete is a new record: a write naming a version of the old one is a conflict", async () => {
    const store = await make();
    const a = freshAccount();
    const key = inboxKey(1);
    const old = await file(store, a, key, writeOf({ n: 1 }));
    expect(await store.delete(a, key)).toBe(true);
    expect(await store.delete(a, key)).toBe(false);
    expect(await store.get(a, key, T0)).toBeNull();
    const again = await file(store, a, key, writeOf({ n: 2 }), T0 + 1);
    expect(again.seq).toBe(2);
    expect(again.version).not.toBe(old.version);
    expect(await store.put(a, key, writeOf({ n: 3 }), old.version, T0 + 2)).toEqual({ state: "conflict" });
    expect((await store.get(a, key, T0 + 2))?.facts).toEqual({ n: 2 });
  });

  it("lists newest first; `before` pages through without gaps or repeats; no XML in its answers", async () => {
    const store = await make();
    const a = freshAccount();
    const folios = [5, 3, 9, 1, 7, 2, 8];
    for (const folio of folios) await file(store, a, inboxKey(folio), writeOf({ n: folio }));
    await file(store, a, inboxKey(4, { receptor: R2 }), writeOf({ n: 4 }));
    // A later write moves nothing in the list.
    const third = await store.get(a, inboxKey(9), T0);
    expect((await store.put(a, inboxKey(9), writeOf({ n: 90 }), third!.version, T0 + 1)).state).toBe("written");
    const listed = await listAll(store, a, R1, T0 + 1, 3);
    expect(listed.map((d) => d.folio)).toEqual([...folios].reverse());
    expect(listed.map((d) => d.seq)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    expect(listed.every((d) => d.xml === null)).toBe(true);
    expect(listed.find((d) => d.folio === 9)).toMatchObject({ facts: { n: 90 }, updated_at: T0 + 1 });
    expect(listed.find((d) => d.folio === 9)!.version).toBeGreaterThan(third!.version);
    expect((await store.list(a, R1, { limit: 2, before: 6 }, T0 + 1)).map((d) => d.seq)).toEqual([5, 4]);
    expect(await store.list(a, R1, { limit: 5, before: 1 }, T0 + 1)).toEqual([]);
    expect(await store.list(a, R1, { limit: 0 }, T0 + 1)).toEqual([]);
    expect((await store.list(a, R2, { limit: 5 }, T0 + 1)).map((d) => d.folio)).toEqual([4]);
    expect(await store.list(a, "11111111-1", { limit: 5 }, T0)).toEqual([]);
  });

  it("answers, lists, writes and deletes an account's records for that account only", async () => {
    const store = await make();
    const [a, b] = [freshAccount(), freshAccount()];
    const key = inboxKey(1);
    const mine = await file(store, a, key, writeOf({ n: 1 }));
    expect(await store.get(b, key, T0)).toBeNull();
    expect(await store.list(b, R1, { limit: 10 }, T0)).toEqual([]);
    expect(await store.put(b, key, writeOf({ n: 2 }), mine.version, T0)).toEqual({ state: "conflict" });
    expect(await store.delete(b, key)).toBe(false);
    // The same key in another account is another record, numbered in that account's inbox.
    const theirs = await file(store, b, key, writeOf({ n: 3 }));
    expect(theirs).toMatchObject({ account: b, seq: 1, facts: { n: 3 } });
    expect(await store.get(a, key, T0)).toEqual(mine);
    expect(await store.delete(b, key)).toBe(true);
    expect(await store.get(a, key, T0)).toEqual(mine);
  });

  it("never answers a record past its expiry, nor writes over it; a first filing may take its key again", async () => {
    const store = await make();
    const a = freshAccount();
    const key = inboxKey(1);
    const expires = T0 + DAY;
    const doc = await file(store, a, key, writeOf({ n: 1 }, { expires }));
    await file(store, a, inboxKey(2), writeOf({ n: 2 }));
    expect(await store.get(a, key, expires - 1)).toEqual(doc);
    expect(await store.get(a, key, expires)).toBeNull();
    expect((await store.list(a, R1, { limit: 10 }, expires)).map((d) => d.folio)).toEqual([2]);
    expect(await store.put(a, key, writeOf({ n: 3 }), doc.version, expires)).toEqual({ state: "conflict" });
    const again = await file(store, a, key, writeOf({ n: 4 }), expires);
    expect(again).toMatchObject({ seq: 3, facts: { n: 4 }, created_at: expires });
    expect((await store.list(a, R1, { limit: 10 }, expires)).map((d) => [d.folio, d.seq])).toEqual([
      [1, 3],
      [2, 2],
    ]);
  });

  if (erasure.by === "writes") {
    const { held } = erasure;
    if (held)
      it("erases expired records in its later writes", async () => {
        const store = await make();
        const a = freshAccount();
        for (const folio of [1, 2, 3]) await file(store, a, inboxKey(folio), writeOf({ n: folio }, { expires: T0 + folio * DAY }));
        expect(await held(a)).toBe(3);
        // Any write erases what has expired by its time, whatever the key.
        await file(store, a, inboxKey(9, { receptor: R2 }), writeOf({ n: 9 }), T0 + 2 * DAY);
        expect(await held(a)).toBe(2);
        expect((await store.list(a, R1, { limit: 10 }, T0 + 2 * DAY)).map((d) => d.folio)).toEqual([3]);
      });
  } else {
    const { expiresAt } = erasure;
    it("leaves expired records to the table's TTL, in unix seconds, never before their expiry", async () => {
      const store = await make();
      const a = freshAccount();
      const key = inboxKey(1);
      const doc = await file(store, a, key, writeOf({ n: 1 }, { expires: T0 + DAY + 1 }));
      expect(await expiresAt(a)).toEqual([Math.ceil((T0 + DAY + 1) / 1000), Math.ceil((T0 + DAY + 1) / 1000)]);
      // A later write moves the record's TTL, and its list entry's with it.
      await store.put(a, key, writeOf({ n: 2 }, { expires: T0 + 3 * DAY }), doc.version, T0 + 1);
      expect(await expiresAt(a)).toEqual([Math.ceil((T0 + 3 * DAY) / 1000), Math.ceil((T0 + 3 * DAY) / 1000)]);
    });
  }

  it("keeps an XML of INBOX_XML_MAX_CHARS characters whole, ASCII or any ISO-8859-1", async () => {
    const store = await make();
    const a = freshAccount();
    const ascii = `<DTE>${"A".repeat(INBOX_XML_MAX_CHARS - 11)}</DTE>`;
    const latin1 = `<DTE>${"ñÁ\u00ff\u0080".repeat(INBOX_XML_MAX_CHARS / 4).slice(0, INBOX_XML_MAX_CHARS - 11)}</DTE>`;
    expect([ascii.length, latin1.length]).toEqual([INBOX_XML_MAX_CHARS, INBOX_XML_MAX_CHARS]);
    const facts = { n: 1, detalle: "x".repeat(20_000) };
    for (const [folio, xml] of [ascii, latin1].entries()) {
      const doc = await file(store, a, inboxKey(folio), writeOf(facts, { xml }));
      expect(doc.xml === xml).toBe(true);
      expect((await store.get(a, inboxKey(folio), T0))?.xml === xml).toBe(true);
      const again = await store.put(a, inboxKey(folio), writeOf(facts, { xml }), doc.version, T0 + 1);
      expect(again.state).toBe("written");
      expect((await store.get(a, inboxKey(folio), T0 + 1))?.xml === xml).toBe(true);
    }
    expect((await store.list(a, R1, { limit: 10 }, T0 + 1)).map((d) => d.xml)).toEqual([null, null]);
  });

  it("never gives a seq twice, even after a delete", async () => {
    const store = await make();
    const a = freshAccount();
    for (const folio of [1, 2, 3]) await file(store, a, inboxKey(folio), writeOf({ n: folio }));
    expect(await store.delete(a, inboxKey(3))).toBe(true);
    expect((await file(store, a, inboxKey(4), writeOf({ n: 4 }))).seq).toBe(4);
    for (const folio of [1, 2, 4]) expect(await store.delete(a, inboxKey(folio))).toBe(true);
    expect(await store.list(a, R1, { limit: 10 }, T0)).toEqual([]);
    expect((await file(store, a, inboxKey(3), writeOf({ n: 5 }))).seq).toBe(5);
    expect((await store.list(a, R1, { limit: 10 }, T0)).map((d) => [d.folio, d.seq])).toEqual([[3, 5]]);
  });
}

const KEPT_MS = 3600_000;
/** The property's keys: three folios in each of two inboxes of one account. */
const KEYS = [0, 1, 2, 3, 4, 5].map((i) => inboxKey(1 + Math.floor(i / 2), { receptor: i % 2 ? R2 : R1 }));

type Step =
  /** Read-modify-write increments, all at once, one per listed key (a key listed twice: two at once on it). */
  | { op: "bump"; keys: number[] }
  /** Several at once on one key: where it has no record, concurrent first filings. */
  | { op: "file"; key: number; times: number }
  | { op: "delete"; key: number }
  | { op: "tick"; ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    op: fc.constant("bump" as const),
    keys: fc.array(fc.integer({ min: 0, max: KEYS.length - 1 }), { minLength: 1, maxLength: 5 }),
  }),
  fc.record({ op: fc.constant("file" as const), key: fc.integer({ min: 0, max: KEYS.length - 1 }), times: fc.integer({ min: 2, max: 4 }) }),
  fc.record({ op: fc.constant("delete" as const), key: fc.integer({ min: 0, max: KEYS.length - 1 }) }),
  fc.record({ op: fc.constant("tick" as const), ms: fc.integer({ min: 1_000, max: 2 * KEPT_MS }) }),
);

/** What the increments wrote: the ids applied, and an XML that says how many (written with them, so read with them). */
const counted = (ids: string[], now: number): InboxWrite => ({
  facts: { ids },
  xml: ids.length % 3 === 0 ? null : `<DTE n="${ids.length}"/>`,
  expires: now + KEPT_MS,
});

/**
 * One increment: read the record, add `id` to its ids, write it over the version read; on a conflict, again.
 * Answers the document written and whether it was the key's first filing.
 */
async function increment(store: InboxStore, account: string, key: InboxKey, id: string, now: number) {
  for (let tries = 0; tries < 200; tries++) {
    const doc = await store.get(account, key, now);
    const ids = doc ? (doc.facts.ids as string[]) : [];
    const put = await store.put(account, key, counted([...ids, id], now), doc ? doc.version : null, now);
    if (put.state === "written") return { document: put.document, first: doc === null };
  }
  throw new Error(`increment ${id} kept losing`);
}

/**
 * The invariant, in words: whatever increments run at once, whatever is deleted and however the clock moves on,
 * (1) a key has one record at most: one in the list, and its reads agree with it; (2) every acknowledged
 * increment of the record's life (since its first filing, until its delete or expiry) is in the record, none
 * lost to a concurrent write, and none is counted twice; an increment never acknowledged is never in it;
 * (3) the seqs of an inbox are distinct, each record keeps its seq for its life, and each new record's seq is
 * above every seq given before in that inbox; the list answers each live record once, newest first.
 */
export function inboxStoreProperty(make: () => Promise<InboxStore> | InboxStore, numRuns = 25) {
  it("property: one record per key, no lost or doubled increment, each new seq above every seq before", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 16 }), async (steps) => {
        const store = await make();
        const account = freshAccount();
        let now = T0;
        let made = 0;
        /** Per key, its record's life as acknowledged: its seq, its increments, its expiry. */
        const lives: ({ seq: number; ids: Set<string>; expires: number } | null)[] = KEYS.map(() => null);
        /** Per inbox, the highest seq given so far. */
        const highest = new Map<string, number>();

        const check = async () => {
          for (const [i, key] of KEYS.entries()) {
            const doc = await store.get(account, key, now);
            const life = lives[i]!;
            if (!life) {
              expect(doc, `key ${i} has no record`).toBeNull();
              continue;
            }
            expect(doc?.seq, `key ${i} keeps its seq`).toBe(life.seq);
            const ids = doc!.facts.ids as string[];
            expect(new Set(ids).size, `key ${i}: no increment twice`).toBe(ids.length);
            expect([...ids].sort(), `key ${i}: every increment acknowledged, no other`).toEqual([...life.ids].sort());
            expect(doc!.xml).toBe(counted(ids, now).xml);
          }
          for (const receptor of [R1, R2]) {
            const listed = await listAll(store, account, receptor, now);
            const live = KEYS.flatMap((key, i) => (key.receptor === receptor && lives[i] ? [[key.folio, lives[i]!.seq]] : [])).sort(
              (x, y) => y[1]! - x[1]!,
            );
            expect(
              listed.map((d) => [d.folio, d.seq]),
              `${receptor}: each live record once, newest first`,
            ).toEqual(live);
            expect(listed.every((d) => d.xml === null)).toBe(true);
          }
        };

        for (const s of steps) {
          if (s.op === "tick") {
            now += s.ms;
            for (const [i, life] of lives.entries()) if (life && life.expires <= now) lives[i] = null;
          }
          if (s.op === "delete") {
            const deleted = await store.delete(account, KEYS[s.key]!);
            // A record that expired may still be held until erased: only a live one must be found.
            if (lives[s.key]) expect(deleted).toBe(true);
            lives[s.key] = null;
          }
          if (s.op === "bump" || s.op === "file") {
            const targets = s.op === "bump" ? s.keys : Array.from({ length: s.times }, () => s.key);
            const done = await Promise.all(
              targets.map(async (k) => {
                const id = `inc${++made}`;
                return { k, id, ...(await increment(store, account, KEYS[k]!, id, now)) };
              }),
            );
            const before = new Map(highest);
            // First filings first: a later write of the same round may have been answered before its key's first.
            done.sort((x, y) => Number(y.first) - Number(x.first));
            for (const { k, id, document, first } of done) {
              const { receptor } = KEYS[k]!;
              if (first) {
                // (3): a first filing is above every seq given before this round, and at most one per key.
                expect(lives[k], `key ${k} filed first twice`).toBeNull();
                expect(document.seq, `key ${k}'s new seq`).toBeGreaterThan(before.get(receptor) ?? 0);
                lives[k] = { seq: document.seq, ids: new Set(), expires: 0 };
                highest.set(receptor, Math.max(highest.get(receptor) ?? 0, document.seq));
              }
              const life = lives[k];
              expect(life, `key ${k} was written without a first filing`).not.toBeNull();
              expect(document.seq).toBe(life!.seq);
              life!.ids.add(id);
              life!.expires = now + KEPT_MS;
            }
            const seqs = KEYS.flatMap((key, i) => (lives[i] ? [`${key.receptor} ${lives[i]!.seq}`] : []));
            expect(new Set(seqs).size, "no two live records of an inbox share a seq").toBe(seqs.length);
          }
          await check();
        }
      }),
      { numRuns },
    );
  });
}
