// Runner-neutral conformance cases for the folio ledger store (cases.ts has the other ports'):
// every adapter hands out each folio once, keeps keys, thresholds and accounts apart.
import type { FolioLedgerStore, FolioRangeRecord } from "../../src/ports.ts";
import { type ConformanceCase, check, equal, unique } from "./cases.ts";

const range = (desde: number, hasta: number, caf = "v1.sealed.box"): FolioRangeRecord => ({
  desde,
  hasta,
  autorizado: "2026-03-01",
  vence: "2026-09-01",
  caf,
});

export function folioLedgerConformanceCases(factory: () => FolioLedgerStore | Promise<FolioLedgerStore>): ConformanceCase[] {
  return [
    {
      name: "folios: add ranges, refuse an overlap, count what is free",
      async run() {
        const store = await factory();
        const account = unique("acct");
        equal(await store.ranges(account, "76086428-5", 33), [], "nothing held yet");
        const added = await store.add(account, "76086428-5", 33, range(101, 200, "box-b"));
        equal(added.state, "added", "first range");
        equal((await store.add(account, "76086428-5", 33, range(1, 100, "box-a"))).state, "added", "range below");
        equal(await store.add(account, "76086428-5", 33, range(150, 250)), { state: "overlap", desde: 101, hasta: 200 }, "overlap");
        const ranges = await store.ranges(account, "76086428-5", 33);
        equal(
          ranges.map((r) => [r.desde, r.hasta, r.usados, r.anulados, r.disponibles]),
          [
            [1, 100, 0, 0, 100],
            [101, 200, 0, 0, 100],
          ],
          "ranges lowest first",
        );
        check(!JSON.stringify(ranges).includes("box-"), "the range list never carries the CAF");
        equal(await store.cafOf(account, "76086428-5", 33, 150), "box-b", "the CAF of a folio");
        equal(await store.cafOf(account, "76086428-5", 33, 201), null, "a folio in no range");
        equal(await store.ranges(account, "76086428-5", 34), [], "another type is another ledger");
      },
    },
    {
      name: "folios: 50 concurrent allocations of one get 50 distinct consecutive folios",
      async run() {
        const store = await factory();
        const account = unique("acct");
        await store.add(account, "76086428-5", 33, range(1001, 1100));
        const results = await Promise.all(Array.from({ length: 50 }, () => store.allocate(account, "76086428-5", 33, 1)));
        const folios = results.flatMap((r) => (r.state === "allocated" ? r.folios : [])).sort((a, b) => a - b);
        equal(
          folios,
          Array.from({ length: 50 }, (_, i) => 1001 + i),
          "folios 1001 to 1050, each once",
        );
        equal((await store.ranges(account, "76086428-5", 33))[0]?.usados, 50, "used");
      },
    },
    {
      name: "folios: consecutive across ranges, exhausted without taking any, release and void",
      async run() {
        const store = await factory();
        const account = unique("acct");
        await store.add(account, "76086428-5", 39, range(1, 3));
        await store.add(account, "76086428-5", 39, range(10, 12));
        equal(
          await store.allocate(account, "76086428-5", 39, 4),
          { state: "allocated", folios: [1, 2, 3, 10], replayed: false },
          "spans ranges",
        );
        equal(await store.allocate(account, "76086428-5", 39, 3), { state: "exhausted", disponibles: 2 }, "exhausted");
        equal(await store.release(account, "76086428-5", 39, [2, 11]), 1, "only an allocated folio is released");
        equal(await store.void(account, "76086428-5", 39, 11, 12), 2, "void");
        equal(
          await store.allocate(account, "76086428-5", 39, 1),
          { state: "allocated", folios: [2], replayed: false },
          "released folio again",
        );
        equal(await store.allocate(account, "76086428-5", 39, 1), { state: "exhausted", disponibles: 0 }, "void folios never handed out");
        const counts = (await store.ranges(account, "76086428-5", 39)).map((r) => [r.usados, r.anulados, r.disponibles]);
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
      name: "folios: a retried allocation with the same key gets the same folios",
      async run() {
        const store = await factory();
        const account = unique("acct");
        await store.add(account, "76086428-5", 33, range(1, 100));
        const key = unique("key");
        const [first, second] = await Promise.all([
          store.allocate(account, "76086428-5", 33, 3, key),
          store.allocate(account, "76086428-5", 33, 3, key),
        ]);
        equal(first?.state === "allocated" && first.folios, [1, 2, 3], "first");
        equal(second?.state === "allocated" && second.folios, [1, 2, 3], "retry");
        check(first?.state === "allocated" && second?.state === "allocated" && first.replayed !== second.replayed, "one of them replayed");
        equal(
          await store.allocate(account, "76086428-5", 33, 1, unique("key")),
          { state: "allocated", folios: [4], replayed: false },
          "new key",
        );
      },
    },
    {
      name: "folios: named folios are claimed all or none, expired ranges give none, a released key is forgotten",
      async run() {
        const store = await factory();
        const account = unique("acct");
        await store.add(account, "76086428-5", 33, range(1, 10));
        await store.add(account, "76086428-5", 33, { ...range(11, 20), vence: "2026-12-31" });
        const key = unique("key");
        equal(await store.claim(account, "76086428-5", 33, [3, 4], key), { state: "claimed", folios: [3, 4], replayed: false }, "claimed");
        equal(await store.claim(account, "76086428-5", 33, [3, 4], key), { state: "claimed", folios: [3, 4], replayed: true }, "replayed");
        equal(await store.claim(account, "76086428-5", 33, [5, 4]), { state: "unavailable", folio: 4, reason: "used" }, "used");
        equal(await store.claim(account, "76086428-5", 33, [21]), { state: "unavailable", folio: 21, reason: "outside" }, "outside");
        equal(await store.claim(account, "76086428-5", 33, [6, 6]), { state: "unavailable", folio: 6, reason: "used" }, "twice");
        await store.void(account, "76086428-5", 33, 7, 7);
        equal(await store.claim(account, "76086428-5", 33, [7]), { state: "unavailable", folio: 7, reason: "void" }, "void");
        equal(
          await store.claim(account, "76086428-5", 33, [5], undefined, "2026-10-01"),
          { state: "unavailable", folio: 5, reason: "expired" },
          "expired",
        );
        equal((await store.ranges(account, "76086428-5", 33))[0]?.usados, 2, "only 3 and 4 used");
        equal(
          await store.allocate(account, "76086428-5", 33, 2, undefined, "2026-10-01"),
          { state: "allocated", folios: [11, 12], replayed: false },
          "past the first range's vence, from the second",
        );
        equal(await store.release(account, "76086428-5", 33, [3]), 1, "released");
        equal(await store.claim(account, "76086428-5", 33, [9], key), { state: "claimed", folios: [9], replayed: false }, "key forgotten");
      },
    },
    {
      name: "folios: the low-folio threshold is kept with the ledger, per account, issuer and type",
      async run() {
        const store = await factory();
        const account = unique("acct");
        equal(await store.threshold(account, "76086428-5", 33), null, "none set");
        await store.add(account, "76086428-5", 33, range(1, 10));
        equal(await store.setThreshold(account, "76086428-5", 33, 5), 5, "set");
        equal(
          await store.allocate(account, "76086428-5", 33, 2),
          { state: "allocated", folios: [1, 2], replayed: false },
          "allocating keeps it",
        );
        equal(await store.threshold(account, "76086428-5", 33), 5, "read back after an allocation");
        equal((await store.ranges(account, "76086428-5", 33))[0]?.usados, 2, "the ranges untouched by it");
        equal(
          [await store.threshold(account, "76086428-5", 34), await store.threshold(unique("acct"), "76086428-5", 33)],
          [null, null],
          "per type and account",
        );
        await store.setThreshold(account, "76086428-5", 33, null);
        equal(await store.threshold(account, "76086428-5", 33), null, "removed");
      },
    },
    {
      name: "folios: another account is isolated",
      async run() {
        const store = await factory();
        const a = unique("acct");
        const b = unique("acct");
        await store.add(a, "76086428-5", 33, range(1, 10));
        equal(await store.ranges(b, "76086428-5", 33), [], "b sees nothing");
        equal(await store.cafOf(b, "76086428-5", 33, 5), null, "nor a's CAF");
        equal(await store.allocate(b, "76086428-5", 33, 1), { state: "exhausted", disponibles: 0 }, "nor allocates a's folios");
        equal((await store.add(b, "76086428-5", 33, range(1, 10))).state, "added", "b may hold the same range");
        equal((await store.ranges(a, "76086428-5", 33))[0]?.usados, 0, "a untouched");
      },
    },
  ];
}
