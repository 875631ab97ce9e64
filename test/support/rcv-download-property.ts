// The RCV download job's invariant as a property any job store runs (`rcvDownloadProperty(() => store)` in a
// describe block): one download of a period of thousands of documents (many pieces), runner rounds alone
// and two at once, runners that die halfway through keeping the file (after writing some pieces, and pieces
// of other content), runners that stall past their lease and write pieces of other content late (after
// another runner finished the job), the SII dropping the session (then a resume), cancels, and the clock.
import fc from "fast-check";
import { expect, it } from "vitest";
import type { Deps } from "../../src/ports/deps.ts";
import type { JobQueue, JobRecord, JobStore } from "../../src/ports/jobs.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { rcvDocuments } from "../../src/sandbox/rcv.ts";
import { sandboxTransport, simulatorOf } from "../../src/sandbox/transport.ts";
import { JOB_LEASE_MS, runDueJobs } from "../../src/services/job-runner.ts";
import { cancelJob, jobResult, resumeJob } from "../../src/services/jobs.ts";
import { downloadStep, newDownloadJob, RESULT_KEPT_MS } from "../../src/services/rcv-download-job.ts";
import { testDeps, tokenFor } from "./app.ts";
import { testCaller } from "./caller.ts";

const T0 = Date.UTC(2026, 10, 22, 15, 0, 0);
const ACCOUNT = "acct_rcv";
const COMPANY = "76192083-9";
const login = { pass: { rut: COMPANY, clave: "sandbox76" } };
const QUERY = { operacion: "COMPRA" as const, rut: COMPANY, periodo: "201902", dte: 33, estado: "REGISTRO" };

type Step =
  | { op: "run" }
  | { op: "race" }
  | { op: "crash"; pieces: number }
  | { op: "stall" }
  | { op: "late" }
  | { op: "drop_session" }
  | { op: "resume" }
  | { op: "cancel" }
  | { op: "tick"; ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant("run" as const) }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant("race" as const) }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant("crash" as const), pieces: fc.integer({ min: 0, max: 20 }) }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant("stall" as const) }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant("late" as const) }), weight: 2 },
  fc.record({ op: fc.constant("drop_session" as const) }),
  fc.record({ op: fc.constant("resume" as const) }),
  { arbitrary: fc.record({ op: fc.constant("cancel" as const) }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant("tick" as const), ms: fc.integer({ min: 1_000, max: 3 * 3_600_000 }) }), weight: 3 },
);

const LATE_WRITER: Step[] = [{ op: "tick", ms: 40_000 }, { op: "stall" }, { op: "tick", ms: 61_000 }, { op: "run" }, { op: "late" }];

/** The store as a runner that dies after writing `survive` pieces sees it: each piece of other content, then the crash. */
function dying(store: JobStore, survive: number): JobStore {
  let written = 0;
  return new Proxy(store, {
    get(target, name, receiver) {
      if (name !== "putResultPiece") return Reflect.get(target, name, receiver);
      return async (account: string, id: string, attempt: number, index: number, _sealed: string, expires: number) => {
        if (written++ >= survive) throw new Error("killed");
        await target.putResultPiece(account, id, attempt, index, "v1.AAAA.AAAA", expires);
      };
    },
  });
}

/**
 * The invariant, in words: whatever the runners, their crashes, the SII's session, cancels and the clock do,
 * (1) the job writes at most one verdict event, `rcv_download.ready` or `rcv_download.failed`, and none after
 * a cancel; (2) a `completado` job's result, read before its 24 hours end, is the whole file as the SII declared
 * it (every document of the period, in order, and `registros` equal to them), never a piece a dead runner wrote;
 * read after them it is a 410, never a partial list; and (3) once nothing stops it (the session is given back,
 * the clock moves on) a job that was not cancelled ends with its verdict.
 */
export function rcvDownloadProperty(make: () => Promise<JobStore & JobQueue> | (JobStore & JobQueue), numRuns = 20) {
  it("property: one verdict per download, the result whole or gone, never a dead runner's pieces", async () => {
    const expected = rcvDocuments(COMPANY, 201902, "COMPRA")
      .filter((d) => d.estado === "REGISTRO" && d.tipo === 33)
      .map((d) => d.folio);
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 25 }), async (steps) => {
        const store = await make();
        let now = T0;
        const { deps: base } = testDeps();
        const sii = sandboxTransport(createDefaultSandbox({ now: () => now }));
        const deps: Deps = { ...base, jobs: store, sii, clock: { now: () => new Date(now) } };
        const token = await tokenFor(deps, { account: ACCOUNT, plan: { daily_units: 1_000_000, monthly_units: 10_000_000 } });
        const caller = { ...testCaller(deps, ACCOUNT), tokenId: () => token.id };
        const created = await store.create(await newDownloadJob(caller, QUERY, login), 100);
        expect(created.state).toBe("created");
        const id = (created as { job: JobRecord }).job.id;
        let cancelled = false;
        /** Jobs a stalled runner leased and still works on, long after its lease. */
        let stalled: JobRecord[] = [];
        const round = () => runDueJobs(store, deps);
        for (const s of steps) {
          if (s.op === "tick") now += s.ms;
          if (s.op === "run") await round();
          if (s.op === "race") await Promise.all([round(), round()]);
          if (s.op === "crash") {
            // A runner leases, keeps some pieces of the file (of other content), and dies before its write.
            for (const job of await store.lease(now, JOB_LEASE_MS, 25)) await downloadStep(job, { ...deps, jobs: dying(store, s.pieces) });
          }
          if (s.op === "stall") stalled.push(...(await store.lease(now, JOB_LEASE_MS, 25)));
          if (s.op === "late") {
            // The stalled runner goes on: it keeps the whole file as pieces of other content, and dies before its write.
            for (const job of stalled) await downloadStep(job, { ...deps, jobs: dying(store, 1000) });
            stalled = [];
          }
          if (s.op === "drop_session") simulatorOf(sii).state.sessions.clear();
          if (s.op === "resume" && (await store.get(ACCOUNT, id))?.estado === "credenciales_requeridas") await resumeJob(caller, id, login);
          if (s.op === "cancel" && (await store.get(ACCOUNT, id))?.estado === "pendiente") {
            await cancelJob(caller, id);
            cancelled = true;
          }
        }
        // (2) as it stands now.
        await checkResult(caller, store, id, now, expected);
        // Nothing stops it any more: the session is given back when asked for, and the clock moves on.
        for (let i = 0; i < 12; i++) {
          const job = await store.get(ACCOUNT, id);
          if (job?.estado === "credenciales_requeridas") await resumeJob(caller, id, login);
          now += JOB_LEASE_MS + 11 * 60_000;
          await round();
        }
        const job = (await store.get(ACCOUNT, id))!;
        const verdicts = (await store.events(ACCOUNT, { after: 0, limit: 100 }, now))
          .filter((e) => e.type === "rcv_download.ready" || e.type === "rcv_download.failed")
          .map((e) => e.type);
        // (1) and (3)
        if (cancelled) {
          expect(job.estado).toBe("cancelado");
          expect(verdicts).toEqual([]);
        } else {
          expect(["completado", "fallido"]).toContain(job.estado);
          expect(verdicts).toEqual([job.estado === "completado" ? "rcv_download.ready" : "rcv_download.failed"]);
          // Only its 72 hours running out fail it here: the SII refuses nothing for good.
          if (job.estado === "fallido") expect(now - T0).toBeGreaterThan(72 * 3_600_000);
        }
        await checkResult(caller, store, id, now, expected);
      }),
      // Always tried first: a runner stalls past its lease, another finishes the job, then the first writes late.
      { numRuns, examples: [[LATE_WRITER]] },
    );
  }, 180_000);
}

/** (2): a completed job's result is the whole file before its time, a 410 after; anything else has none. */
async function checkResult(caller: Parameters<typeof jobResult>[0], store: JobStore, id: string, now: number, folios: number[]) {
  const job = (await store.get(ACCOUNT, id))!;
  const kept = (job.progress as { resultado: { hasta: number } | null }).resultado;
  const read = jobResult(caller, id).then(async (pieces) => {
    let text = "";
    for await (const piece of pieces) text += piece;
    return JSON.parse(text) as { registros: number; documentos: { folio: number }[] };
  });
  if (job.estado !== "completado") return expect(read).rejects.toMatchObject({ status: 409 });
  expect(kept!.hasta - job.updated_at).toBeLessThanOrEqual(RESULT_KEPT_MS);
  if (now >= kept!.hasta) return expect(read).rejects.toMatchObject({ status: 410, code: "JOB_RESULT_GONE" });
  const data = await read;
  expect(data.registros).toBe(folios.length);
  expect(data.documentos.map((d) => d.folio)).toEqual(folios);
}
