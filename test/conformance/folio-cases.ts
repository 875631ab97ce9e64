// Runner-neutral conformance cases for the folio ledger store (cases.ts has the other ports'):
// every adapter hands out each folio once, holds each allocation for one attempt until it settles or
// gives it back, keeps thresholds and accounts apart, and lets one account only hold a CAF's range.
import type { FolioHold, FolioLedgerStore, FolioRangeRecord } from "../../src/ports/stores.ts";
import { type ConformanceCase, check, equal, unique } from "./cases.ts";

const range = (desde: number, hasta: number, caf = "v1.sealed.box"): FolioRangeRecord => ({
  desde,
  hasta,
  autorizado: "2026-03-01",
  vence: "2026-09-01",
  caf,
});

const NOW = Date.parse("2026-03-02T12:00:00Z");
const LEASE = 60_000;
/** An attempt's hold: without `key` an attempt of its own; `at` moves its clock. */
const hold = (key?: string, at = NOW, print = "print-a"): FolioHold => {
  const owner = unique("attempt");
  return key
    ? { id: key, print, owner, keyed: true, now: at, leaseMs: LEASE }
    : { id: owner, print: "", owner, keyed: false, now: at, leaseMs: LEASE };
};
/** The same attempt later on its clock. */
const later = (h: FolioHold, ms: number): FolioHold => ({ ...h, now: h.now + ms });
/** Each case its own issuer: a CAF's range is held by one account across the store. */
const issuer = () => unique("rut");

export function folioLedgerConformanceCases(factory: () => FolioLedgerStore | Promise<FolioLedgerStore>): ConformanceCase[] {
  return [
    {
      name: "folios: add ranges, refuse an overlap, count what is free",
      async run() {
        const store = await factory();
        const account = unique("acct");
        const rut = issuer();
        equal(await store.ranges(account, rut, 33), [], "nothing held yet");
        const added = await store.add(account, rut, 33, range(101, 200, "box-b"));
        equal(added.state, "added", "first range");
        equal((await store.add(account, rut, 33, range(1, 100, "box-a"))).state, "added", "range below");
        equal(
          await store.add(account, rut, 33, range(150, 250)),
          { state: "overlap", desde: 101, hasta: 200, elsewhere: false },
          "overlap",
        );
        const ranges = await store.ranges(account, rut, 33);
        equal(
          ranges.map((r) => [r.desde, r.hasta, r.usados, r.anulados, r.sin_respuesta, r.disponibles]),
          [
            [1, 100, 0, 0, 0, 100],
            [101, 200, 0, 0, 0, 100],
          ],
          "ranges lowest first",
        );
        check(!JSON.stringify(ranges).includes("box-"), "the range list never carries the CAF");
        equal(await store.cafOf(account, rut, 33, 150), "box-b", "the CAF of a folio");
        equal(await store.cafOf(account, rut, 33, 201), null, "a folio in no range");
        equal(await store.ranges(account, rut, 34), [], "another type is another ledger");
      },
    },
    {
      name: "folios: 50 concurrent allocations of one get 50 distinct consecutive folios",
      async run() {
        const store = await factory();
        const account = unique("acct");
        const rut = issuer();
        await store.add(account, rut, 33, range(1001, 1100));
        const results = await Promise.all(Array.from({ length: 50 }, () => store.allocate(account, rut, 33, 1, hold())));
        const folios = results.flatMap((r) => (r.state === "allocated" ? r.folios : [])).sort((a, b) => a - b);
        equal(
          folios,
          Array.from({ length: 50 }, (_, i) => 1001 + i),
          "folios 1001 to 1050, each once",
        );
        equal((await store.ranges(account, rut, 33))[0]?.usados, 50, "used");
      },
    },
    {
      name: "folios: consecutive across ranges, exhausted without taking any, given back by their holder only, void",
      async run() {
        const store = await factory();
        const account = unique("acct");
        const rut = issuer();
        await store.add(account, rut, 39, range(1, 3));
        await store.add(account, rut, 39, range(10, 12));
        const first = hold();
        equal(
          await store.allocate(account, rut, 39, 4, first),
          { state: "allocated", folios: [1, 2, 3, 10], replayed: false },
          "spans ranges",
        );
        equal(await store.allocate(account, rut, 39, 3, hold()), { state: "exhausted", disponibles: 2 }, "exhausted");
        equal(await store.release(account, rut, 39, { ...first, owner: "someone-else" }), [], "another owner gives nothing back");
        equal(await store.void(account, rut, 39, 11, 12), 2, "void");
        equal(await store.release(account, rut, 39, first), [1, 2, 3, 10], "the holder gives its folios back");
        equal(await store.release(account, rut, 39, first), [], "once");
        equal(await store.allocate(account, rut, 39, 4, hold()), { state: "allocated", folios: [1, 2, 3, 10], replayed: false }, "again");
        equal(await store.allocate(account, rut, 39, 1, hold()), { state: "exhausted", disponibles: 0 }, "void folios never handed out");
        const counts = (await store.ranges(account, rut, 39)).map((r) => [r.usados, r.anulados, r.disponibles]);
        equal(
          counts,
          [
            [3, 0, 0],
            [1, 2, 0],
          ],
          "counts",
        );
      },
    },
    {
      name: "folios: a settled hold is never given back; a hold lost to a retry cannot settle nor give back",
      async run() {
        const store = await factory();
        const account = unique("acct");
        const rut = issuer();
        await store.add(account, rut, 33, range(1, 100));
        const answered = hold();
        await store.allocate(account, rut, 33, 2, answered);
        equal(await store.settle(account, rut, 33, answered), true, "settled");
        equal(await store.release(account, rut, 33, answered), [], "an answered hold gives nothing back");
        const key = unique("key");
        const slow = hold(key);
        equal(await store.allocate(account, rut, 33, 3, slow), { state: "allocated", folios: [3, 4, 5], replayed: false }, "first attempt");
        equal(
          await store.allocate(account, rut, 33, 3, hold(key, NOW + 1000)),
          { state: "busy", until: NOW + LEASE },
          "held, still in its lease",
        );
        const retry = hold(key, NOW + LEASE + 1);
        equal(
          await store.allocate(account, rut, 33, 3, retry),
          { state: "allocated", folios: [3, 4, 5], replayed: true },
          "taken over after it",
        );
        equal(await store.release(account, rut, 33, later(slow, LEASE + 2)), [], "the first attempt gives back nothing");
        equal(await store.settle(account, rut, 33, later(slow, LEASE + 2)), false, "nor settles");
        equal(await store.settle(account, rut, 33, later(retry, 10)), true, "the retry settles");
        equal(
          await store.allocate(account, rut, 33, 3, hold(key, NOW + LEASE + 20, "print-b")),
          { state: "conflict" },
          "the key with another request",
        );
        equal(
          await store.allocate(account, rut, 33, 1, hold(undefined, NOW + LEASE + 30)),
          { state: "allocated", folios: [6], replayed: false },
          "next",
        );
        equal((await store.ranges(account, rut, 33))[0]?.usados, 6, "used");
      },
    },
    {
      name: "folios: concurrent attempts under one key: one holds, the other is busy",
      async run() {
        const store = await factory();
        const account = unique("acct");
        const rut = issuer();
        await store.add(account, rut, 33, range(1, 100));
        const key = unique("key");
        const results = await Promise.all([store.allocate(account, rut, 33, 3, hold(key)), store.allocate(account, rut, 33, 3, hold(key))]);
        equal(results.map((r) => r.state).sort(), ["allocated", "busy"], "one allocated, one busy");
        equal((await store.ranges(account, rut, 33))[0]?.usados, 3, "three used");
      },
    },
    {
      name: "folios: a hold nobody settles turns void: at once past its lease without a key, a day later with one",
      async run() {
        const store = await factory();
        const account = unique("acct");
        const rut = issuer();
        await store.add(account, rut, 33, range(1, 100));
        await store.allocate(account, rut, 33, 2, hold());
        await store.allocate(account, rut, 33, 3, hold(unique("key")));
        await store.allocate(account, rut, 33, 1, hold(undefined, NOW + LEASE + 1));
        equal(
          (await store.ranges(account, rut, 33)).map((r) => [r.usados, r.sin_respuesta, r.disponibles]),
          [[4, 2, 94]],
          "the unkeyed hold voided, the keyed one waits for its retry",
        );
        await store.allocate(account, rut, 33, 1, hold(undefined, NOW + LEASE + 24 * 3600_000 + 1));
        equal(
          (await store.ranges(account, rut, 33)).map((r) => [r.usados, r.sin_respuesta, r.disponibles, r.siguiente]),
          [[1, 6, 93, 8]],
          "the keyed one void a day later; the one pending since is too, its lease gone",
        );
      },
    },
    {
      name: "folios: named folios are claimed all or none, expired ranges give none, a released hold is forgotten",
      async run() {
        const store = await factory();
        const account = unique("acct");
        const rut = issuer();
        await store.add(account, rut, 33, range(1, 10));
        await store.add(account, rut, 33, { ...range(11, 20), vence: "2026-12-31" });
        const key = unique("key");
        const first = hold(key);
        equal(await store.claim(account, rut, 33, [3, 4], first), { state: "claimed", folios: [3, 4], replayed: false }, "claimed");
        equal(await store.claim(account, rut, 33, [3, 4], { ...first, owner: "retry" }), { state: "busy", until: NOW + LEASE }, "busy");
        equal(await store.claim(account, rut, 33, [5, 4], hold()), { state: "unavailable", folio: 4, reason: "used" }, "used");
        equal(await store.claim(account, rut, 33, [21], hold()), { state: "unavailable", folio: 21, reason: "outside" }, "outside");
        equal(await store.claim(account, rut, 33, [6, 6], hold()), { state: "unavailable", folio: 6, reason: "used" }, "twice");
        await store.void(account, rut, 33, 7, 7);
        equal(await store.claim(account, rut, 33, [7], hold()), { state: "unavailable", folio: 7, reason: "void" }, "void");
        equal(
          await store.claim(account, rut, 33, [5], hold(), "2026-10-01"),
          { state: "unavailable", folio: 5, reason: "expired" },
          "expired",
        );
        equal((await store.ranges(account, rut, 33))[0]?.usados, 2, "only 3 and 4 used");
        equal(
          await store.allocate(account, rut, 33, 2, hold(), "2026-10-01"),
          { state: "allocated", folios: [11, 12], replayed: false },
          "past the first range's vence, from the second",
        );
        equal(await store.release(account, rut, 33, first), [3, 4], "released");
        equal(await store.claim(account, rut, 33, [9], hold(key)), { state: "claimed", folios: [9], replayed: false }, "key forgotten");
      },
    },
    {
      name: "folios: the low-folio threshold is kept with the ledger, per account, issuer and type",
      async run() {
        const store = await factory();
        const account = unique("acct");
        const rut = issuer();
        equal(await store.threshold(account, rut, 33), null, "none set");
        await store.add(account, rut, 33, range(1, 10));
        equal(await store.setThreshold(account, rut, 33, 5), 5, "set");
        equal(
          await store.allocate(account, rut, 33, 2, hold()),
          { state: "allocated", folios: [1, 2], replayed: false },
          "allocating keeps it",
        );
        equal(await store.threshold(account, rut, 33), 5, "read back after an allocation");
        equal((await store.ranges(account, rut, 33))[0]?.usados, 2, "the ranges untouched by it");
        equal(
          [await store.threshold(account, rut, 34), await store.threshold(unique("acct"), rut, 33)],
          [null, null],
          "per type and account",
        );
        await store.setThreshold(account, rut, 33, null);
        equal(await store.threshold(account, rut, 33), null, "removed");
      },
    },
    {
      name: "folios: another account is isolated, and cannot hold a range another account holds",
      async run() {
        const store = await factory();
        const a = unique("acct");
        const b = unique("acct");
        const rut = issuer();
        await store.add(a, rut, 33, range(1, 10));
        equal(await store.ranges(b, rut, 33), [], "b sees nothing");
        equal(await store.cafOf(b, rut, 33, 5), null, "nor a's CAF");
        equal(await store.allocate(b, rut, 33, 1, hold()), { state: "exhausted", disponibles: 0 }, "nor allocates a's folios");
        equal(
          await store.add(b, rut, 33, range(5, 20)),
          { state: "overlap", desde: 1, hasta: 10, elsewhere: true },
          "b may not hold a's folios",
        );
        equal(await store.ranges(b, rut, 33), [], "b holds nothing");
        equal((await store.add(b, rut, 33, range(11, 20))).state, "added", "b may hold another range");
        equal((await store.add(b, rut, 34, range(1, 10))).state, "added", "or the same range of another type");
        equal((await store.add(b, issuer(), 33, range(1, 10))).state, "added", "or of another issuer");
        equal((await store.add(a, rut, 33, range(1, 10))).state, "overlap", "a adding its own again: its ledger refuses it");
        equal((await store.ranges(a, rut, 33))[0]?.usados, 0, "a untouched");
      },
    },
  ];
}
