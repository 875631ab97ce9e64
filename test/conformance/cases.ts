// Runner-neutral conformance cases for the storage ports. Each adapter's test file feeds them a
// factory and runs them with its own runner (vitest in Node, vitest in workerd, ...).

import { bytesToBase64 } from "../../src/lib/encoding.ts";
import type { Plan } from "../../src/ports/access.ts";
import type {
  CacheStore,
  IdempotencyStore,
  QuotaStore,
  SessionStore,
  SettingsStore,
  TokenRecord,
  TokenStore,
} from "../../src/ports/stores.ts";

/** Base64 of `bytes` random bytes (getRandomValues gives at most 64 KiB a call). */
function randomBase64(bytes: number): string {
  const out = new Uint8Array(bytes);
  for (let at = 0; at < bytes; at += 65_536) crypto.getRandomValues(out.subarray(at, at + 65_536));
  return bytesToBase64(out);
}

export interface StoreFactory {
  tokens(): TokenStore | Promise<TokenStore>;
  quota(): QuotaStore | Promise<QuotaStore>;
  settings(): SettingsStore | Promise<SettingsStore>;
  idempotency(): IdempotencyStore | Promise<IdempotencyStore>;
}

export interface ConformanceCase {
  name: string;
  run(): Promise<void>;
}

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`conformance: ${message}`);
}

export function equal(actual: unknown, expected: unknown, message: string): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`conformance: ${message}: expected ${e}, got ${a}`);
}

// Stores may be shared between cases (one database per test file), so every case uses its own keys.
let counter = 0;
export const unique = (prefix: string) =>
  `${prefix}_${Date.now().toString(36)}_${(counter++).toString(36)}_${Math.random().toString(36).slice(2, 8)}`;

function tokenRecord(overrides: Partial<TokenRecord> = {}): TokenRecord {
  return {
    id: unique("tok"),
    name: "conformance",
    account: unique("acct"),
    scopes: ["sii:read"],
    plan: { daily_units: 100, monthly_units: 1000 },
    blocked: false,
    created_at: "2026-01-02T03:04:05.000Z",
    token_hash: unique("hash"),
    hint: "abcd",
    ...overrides,
  };
}

const plan: Plan = { daily_units: 10, monthly_units: 15 };
const noon = new Date("2026-03-15T12:00:00Z");

export function conformanceCases(factory: StoreFactory): ConformanceCase[] {
  return [
    {
      name: "tokens: put then read by id and by hash",
      async run() {
        const store = await factory.tokens();
        const record = tokenRecord();
        await store.put(record);
        equal(await store.getById(record.id), record, "getById");
        equal(await store.getByHash(record.token_hash), record, "getByHash");
        equal(await store.getById(unique("missing")), null, "unknown id");
        equal(await store.getByHash(unique("missing")), null, "unknown hash");
      },
    },
    {
      name: "tokens: put replaces (block) and list shows every token",
      async run() {
        const store = await factory.tokens();
        const a = tokenRecord();
        const b = tokenRecord();
        await store.put(a);
        await store.put(b);
        await store.put({ ...a, blocked: true });
        equal((await store.getByHash(a.token_hash))?.blocked, true, "blocked via hash lookup");
        const listed = await store.list();
        const ids = listed.map((t) => t.id);
        check(ids.includes(a.id) && ids.includes(b.id), "list contains both tokens");
        equal(listed.filter((t) => t.id === a.id).length, 1, "replaced token listed once");
      },
    },
    {
      name: "tokens: delete removes both lookups",
      async run() {
        const store = await factory.tokens();
        const record = tokenRecord();
        await store.put(record);
        equal(await store.delete(record.id), true, "delete existing");
        equal(await store.getById(record.id), null, "gone by id");
        equal(await store.getByHash(record.token_hash), null, "gone by hash");
        equal(await store.delete(record.id), false, "delete again");
      },
    },
    {
      name: "quota: consumes until the daily limit, then refuses without counting",
      async run() {
        const store = await factory.quota();
        const id = unique("tok");
        const first = await store.consume(id, 4, plan, noon);
        equal([first.allowed, first.daily.used, first.monthly.used], [true, 4, 4], "first");
        const second = await store.consume(id, 6, plan, noon);
        equal([second.allowed, second.daily.used], [true, 10], "second reaches the limit");
        const third = await store.consume(id, 1, plan, noon);
        equal([third.allowed, third.daily.used, third.monthly.used], [false, 10, 10], "refused, unchanged");
        equal(third.daily.limit, 10, "daily limit");
        equal(third.daily.resets_at, Date.parse("2026-03-16T00:00:00Z") / 1000, "daily reset is next UTC midnight");
        equal(third.monthly.resets_at, Date.parse("2026-04-01T00:00:00Z") / 1000, "monthly reset is next UTC month");
      },
    },
    {
      name: "quota: a new day starts from zero but the month keeps counting",
      async run() {
        const store = await factory.quota();
        const id = unique("tok");
        await store.consume(id, 10, plan, noon);
        const nextDay = new Date("2026-03-16T00:00:01Z");
        const a = await store.consume(id, 5, plan, nextDay);
        equal([a.allowed, a.daily.used, a.monthly.used], [true, 5, 15], "next day");
        const b = await store.consume(id, 1, plan, nextDay);
        equal([b.allowed, b.monthly.used], [false, 15], "monthly limit binds");
        const nextMonth = await store.consume(id, 1, plan, new Date("2026-04-01T00:00:00Z"));
        equal([nextMonth.allowed, nextMonth.daily.used, nextMonth.monthly.used], [true, 1, 1], "next month");
      },
    },
    {
      name: "quota: refund gives units back to the windows of the consumption, never below zero",
      async run() {
        const store = await factory.quota();
        const id = unique("tok");
        await store.consume(id, 7, plan, noon);
        await store.refund(id, 5, noon);
        equal((await store.peek(id, plan, noon)).daily.used, 2, "after refund");
        await store.refund(id, 50, noon);
        const state = await store.peek(id, plan, noon);
        equal([state.daily.used, state.monthly.used], [0, 0], "clamped at zero");
      },
    },
    {
      name: "quota: peek of an unknown token is empty with the plan's limits",
      async run() {
        const store = await factory.quota();
        const state = await store.peek(unique("tok"), plan, noon);
        equal([state.daily.used, state.daily.limit, state.monthly.used, state.monthly.limit], [0, 10, 0, 15], "peek");
      },
    },
    {
      name: "quota: concurrent consumption never overshoots",
      async run() {
        const store = await factory.quota();
        const id = unique("tok");
        const results = await Promise.all(Array.from({ length: 30 }, () => store.consume(id, 3, plan, noon)));
        equal(results.filter((r) => r.allowed).length, 3, "allowed calls (3 units each, 10 a day)");
        equal((await store.peek(id, plan, noon)).daily.used, 9, "used");
      },
    },
    {
      name: "settings: put, get, overwrite, delete, per account",
      async run() {
        const store = await factory.settings();
        const a = unique("acct");
        const b = unique("acct");
        equal(await store.get(a, "proxy"), null, "empty");
        await store.put(a, "proxy", { enabled: true, url: "http://proxy.example:3128" });
        equal(await store.get(a, "proxy"), { enabled: true, url: "http://proxy.example:3128" }, "read back");
        equal(await store.get(b, "proxy"), null, "other account sees nothing");
        await store.put(a, "proxy", { enabled: false });
        equal(await store.get(a, "proxy"), { enabled: false }, "overwritten");
        await store.delete(a, "proxy");
        equal(await store.get(a, "proxy"), null, "deleted");
      },
    },
    {
      name: "idempotency: begin, in progress, complete, replay, conflict",
      async run() {
        const store = await factory.idempotency();
        const account = unique("acct");
        const key = unique("key");
        const response = { status: 201, headers: { "content-type": "application/json" }, body: "eyJhIjoxfQ==" };
        equal(await store.begin(account, key, "fp1", "a", noon, 60_000, 100), { state: "started" }, "first begin");
        equal(await store.begin(account, key, "fp1", "a", noon, 60_000, 100), { state: "in_progress" }, "second begin");
        equal(await store.begin(account, key, "fp2", "a", noon, 60_000, 100), { state: "conflict" }, "other body while in progress");
        await store.complete(account, key, "fp1", "a", response, noon, 3_600_000);
        equal(await store.begin(account, key, "fp1", "a", noon, 60_000, 100), { state: "completed", response }, "replay");
        equal(await store.begin(account, key, "fp2", "a", noon, 60_000, 100), { state: "conflict" }, "other body after completion");
        equal(await store.begin(unique("acct"), key, "fp2", "a", noon, 60_000, 100), { state: "started" }, "same key, other account");
      },
    },
    {
      name: "idempotency: expiry, lease takeover and abandon",
      async run() {
        const store = await factory.idempotency();
        const account = unique("acct");
        const response = { status: 200, headers: {}, body: "" };
        const k1 = unique("key");
        await store.begin(account, k1, "fp", "a", noon, 60_000, 100);
        await store.complete(account, k1, "fp", "a", response, noon, 1_000);
        const later = new Date(noon.getTime() + 2_000);
        equal(await store.begin(account, k1, "other", "a", later, 60_000, 100), { state: "started" }, "expired record is replaced");
        const k2 = unique("key");
        await store.begin(account, k2, "fp", "a", noon, 1_000, 100);
        equal(await store.begin(account, k2, "fp", "b", later, 1_000, 100), { state: "started" }, "stale lease taken over");
        const k3 = unique("key");
        await store.begin(account, k3, "fp", "a", noon, 60_000, 100);
        await store.abandon(account, k3, "fp", "a");
        equal(await store.begin(account, k3, "fp", "a", noon, 60_000, 100), { state: "started" }, "abandoned key starts again");
      },
    },
    {
      name: "idempotency: an attempt whose lease was taken over can neither complete nor abandon; the new attempt completes",
      async run() {
        const store = await factory.idempotency();
        const account = unique("acct");
        const key = unique("key");
        const late = { status: 200, headers: {}, body: "bGF0ZQ==" };
        const kept = { status: 200, headers: {}, body: "a2VwdA==" };
        equal(await store.begin(account, key, "fp", "slow", noon, 1_000, 100), { state: "started" }, "first attempt");
        const later = new Date(noon.getTime() + 2_000);
        equal(await store.begin(account, key, "fp", "retry", later, 60_000, 100), { state: "started" }, "its lease taken over");
        equal(await store.complete(account, key, "fp", "slow", late, later, 3_600_000), false, "the slow attempt completes nothing");
        await store.abandon(account, key, "fp", "slow");
        equal(await store.begin(account, key, "fp", "third", later, 60_000, 100), { state: "in_progress" }, "nor drops the retry's record");
        equal(await store.complete(account, key, "fp", "retry", kept, later, 3_600_000), true, "the retry completes");
        equal(await store.begin(account, key, "fp", "third", later, 60_000, 100), { state: "completed", response: kept }, "replay");
        equal(await store.complete(account, key, "fp", "slow", late, later, 3_600_000), false, "nor over the answer");
        equal(await store.complete(account, key, "fp", "retry", late, later, 3_600_000), false, "completed once");
        equal(
          await store.begin(account, key, "fp", "third", later, 60_000, 100),
          { state: "completed", response: kept },
          "the same replay",
        );
        // An answer in parts too: the slow attempt's parts are never read as the record's.
        const k2 = unique("key");
        const big = { status: 201, headers: {}, body: `v1.${randomBase64(1_200_000)}` };
        await store.begin(account, k2, "fp", "slow", noon, 1_000, 100);
        await store.begin(account, k2, "fp", "retry", later, 60_000, 100);
        equal(await store.complete(account, k2, "fp", "slow", big, later, 3_600_000), false, "a large late answer is refused");
        const other = { ...big, body: `v1.${randomBase64(900_000)}` };
        equal(await store.complete(account, k2, "fp", "retry", other, later, 3_600_000), true, "the retry completes");
        equal(await store.complete(account, k2, "fp", "retry", kept, later, 3_600_000), false, "once, its parts kept");
        const replayed = await store.begin(account, k2, "fp", "third", later, 60_000, 100);
        check(replayed.state === "completed" && replayed.response.body === other.body, "its large answer only");
        equal(await store.stored(account, later), 2, "each key counts once");
      },
    },
    {
      name: "idempotency: a cap on the live answers of an account; replays pass it, expiry frees room",
      async run() {
        const store = await factory.idempotency();
        const account = unique("acct");
        const day = 24 * 3_600_000;
        const response = { status: 200, headers: {}, body: "" };
        const keys = [unique("key"), unique("key"), unique("key")];
        for (const k of keys) {
          equal(await store.begin(account, k, "fp", "a", noon, 60_000, 3), { state: "started" }, "under the cap");
          await store.complete(account, k, "fp", "a", response, noon, day);
        }
        equal(await store.stored(account, noon), 3, "answers held");
        const full = await store.begin(account, unique("key"), "fp", "a", noon, 60_000, 3);
        check(full.state === "full", `a fourth key is refused, got ${full.state}`);
        equal(full.stored, 3, "the count it names");
        check(full.freesAt > noon.getTime() && full.freesAt <= noon.getTime() + day + 3_600_000, `freesAt ${full.freesAt}`);
        equal(await store.begin(account, keys[0] ?? "", "fp", "a", noon, 60_000, 3), { state: "completed", response }, "a replay passes");
        equal(await store.begin(account, keys[1] ?? "", "other", "a", noon, 60_000, 3), { state: "conflict" }, "a conflict is told");
        equal(await store.begin(unique("acct"), unique("key"), "fp", "a", noon, 60_000, 3), { state: "started" }, "other account");
        // In-progress and abandoned records are no answers: they do not count.
        const open = unique("acct");
        await store.begin(open, unique("key"), "fp", "a", noon, 60_000, 1);
        const dropped = unique("key");
        await store.begin(open, dropped, "fp", "a", noon, 60_000, 1);
        await store.abandon(open, dropped, "fp", "a");
        equal(await store.stored(open, noon), 0, "nothing stored while in progress");
        // Stores may count by the hour of completion (DynamoDB): 25 h later every one has gone.
        const after = new Date(noon.getTime() + day + 3_600_000 + 1_000);
        equal(await store.stored(account, after), 0, "expired answers are not counted");
        equal(await store.begin(account, unique("key"), "fp", "a", after, 60_000, 3), { state: "started" }, "room again");
      },
    },
    {
      name: "idempotency: a completed answer of several MiB replays whole, counts once, and leaves no parts behind",
      async run() {
        const store = await factory.idempotency();
        const account = unique("acct");
        const key = unique("key");
        // Sealed text is incompressible base64: ~5 MiB of it is parts on every store that has them.
        const big = { status: 201, headers: {}, body: `v1.${randomBase64(3_900_000)}.${randomBase64(16)}` };
        const small = { status: 200, headers: { "content-type": "application/json" }, body: "eyJhIjoxfQ==" };
        const replayed = async (k: string, at: Date, expected: typeof big, what: string) => {
          const begun = await store.begin(account, k, "fp", "a", at, 60_000, 100);
          check(begun.state === "completed", `${what}: completed, got ${begun.state}`);
          check(
            begun.response.body === expected.body,
            `${what}: body of ${expected.body.length} characters, got ${begun.response.body.length}`,
          );
          equal({ ...begun.response, body: "" }, { ...expected, body: "" }, `${what}: status and headers`);
        };
        equal(await store.begin(account, key, "fp", "a", noon, 60_000, 100), { state: "started" }, "first begin");
        await store.complete(account, key, "fp", "a", big, noon, 1_000);
        await replayed(key, noon, big, "large answer");
        equal(await store.stored(account, noon), 1, "one answer, whatever its parts");
        // After expiry the key starts anew; its new, small answer is all that is replayed.
        const later = new Date(noon.getTime() + 2_000);
        equal(await store.begin(account, key, "fp", "a", later, 60_000, 100), { state: "started" }, "expired large answer is replaced");
        await store.complete(account, key, "fp", "a", small, later, 3_600_000);
        await replayed(key, later, small, "small answer after expiry");
        // An answer in parts over an abandoned attempt, then expiry and a shorter one in parts again.
        const k2 = unique("key");
        const mid = { ...big, body: `v1.${randomBase64(1_200_000)}` };
        await store.begin(account, k2, "fp", "a", noon, 60_000, 100);
        await store.abandon(account, k2, "fp", "a");
        equal(await store.begin(account, k2, "fp", "a", noon, 60_000, 100), { state: "started" }, "abandoned key starts again");
        await store.complete(account, k2, "fp", "a", mid, noon, 1_000);
        await replayed(k2, noon, mid, "answer in parts after abandon");
        const other = { ...big, body: `v1.${randomBase64(600_000)}` };
        equal(await store.begin(account, k2, "fp", "a", later, 60_000, 100), { state: "started" }, "expired again");
        await store.complete(account, k2, "fp", "a", other, later, 3_600_000);
        await replayed(k2, later, other, "a shorter large answer over a longer one");
      },
    },
    {
      name: "idempotency: concurrent begins, exactly one starts",
      async run() {
        const store = await factory.idempotency();
        const account = unique("acct");
        const key = unique("key");
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) => store.begin(account, key, "fp", `a${i}`, noon, 60_000, 100)),
        );
        equal(results.filter((r) => r.state === "started").length, 1, "started");
        equal(results.filter((r) => r.state === "in_progress").length, 9, "in progress");
      },
    },
  ];
}

export function sessionConformanceCases(factory: () => SessionStore | Promise<SessionStore>): ConformanceCase[] {
  return [
    {
      name: "sessions: put, get, expire, delete",
      async run() {
        const store = await factory();
        const key = unique("session");
        equal(await store.get(key, noon), null, "empty");
        await store.put(key, "sealed-1", 60_000, noon);
        equal(await store.get(key, noon), "sealed-1", "read back");
        await store.put(key, "sealed-2", 60_000, noon);
        equal(await store.get(key, noon), "sealed-2", "replaced");
        equal(await store.get(key, new Date(noon.getTime() + 61_000)), null, "expired");
        await store.put(key, "sealed-3", 60_000, noon);
        await store.delete(key);
        equal(await store.get(key, noon), null, "deleted");
      },
    },
    {
      name: "sessions: call slots are handed out at least the interval apart, per key",
      async run() {
        const store = await factory();
        const key = unique("rut");
        const waits = await Promise.all(Array.from({ length: 4 }, () => store.reserve(key, 1000, noon)));
        equal(
          [...waits].sort((a, b) => a - b),
          [0, 1000, 2000, 3000],
          "slots",
        );
        equal(await store.reserve(unique("rut"), 1000, noon), 0, "other key is free");
        equal(await store.reserve(key, 1000, new Date(noon.getTime() + 10_000)), 0, "free again later");
      },
    },
    {
      name: "sessions: a call slot further off than the caller's maxWaitMs is not booked",
      async run() {
        const store = await factory();
        const key = unique("rut");
        equal(await store.reserve(key, 1000, noon, 500), 0, "free now");
        equal(await store.reserve(key, 1000, noon, 500), 1000, "too far: says how far");
        equal(await store.reserve(key, 1000, noon, 1000), 1000, "within the bound: booked");
        equal(await store.reserve(key, 1000, noon), 2000, "the refused call booked nothing");
      },
    },
  ];
}

export function cacheConformanceCases(factory: () => CacheStore | Promise<CacheStore>): ConformanceCase[] {
  return [
    {
      name: "cache: put, get, replace, expire, keep for good without a ttl",
      async run() {
        const store = await factory();
        const key = unique("cache");
        equal(await store.get(key, noon), null, "empty");
        await store.put(key, '{"a":1}', noon, 120_000);
        equal(await store.get(key, noon), '{"a":1}', "read back");
        await store.put(key, '{"a":2}', noon, 120_000);
        equal(await store.get(key, noon), '{"a":2}', "replaced");
        equal(await store.get(key, new Date(noon.getTime() + 121_000)), null, "expired");
        const forever = unique("cache");
        await store.put(forever, "x", noon);
        equal(await store.get(forever, new Date(noon.getTime() + 10 * 365 * 86_400_000)), "x", "kept for good");
      },
    },
  ];
}
