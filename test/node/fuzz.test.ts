// Fuzzing every operation of /openapi.json (issue 11, item 1): from a valid-looking request built
// from each operation's schemas, one part at a time is made hostile. Invariants: never a 500,
// always the error envelope with a code the document promises for that status, validation answers
// name the field, and a rejected request costs no quota. FUZZ_RUNS sets the cases per operation
// (`npm run fuzz` runs many more), FUZZ_SEED replays a failure.
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { ADMIN, type Loose, probeApp, tokenFor } from "../support/app.ts";
import {
  baselineOf,
  buildCase,
  caseArbitrary,
  checkAnswer,
  errorKeys,
  type Operation,
  operationsOf,
  plainRequest,
  toRequest,
  UNCHARGED,
} from "../support/fuzz.ts";

/** Cases per operation: bounded in `npm test`, many more under `npm run fuzz`. */
const RUNS = Number(process.env.FUZZ_RUNS ?? (process.env.npm_lifecycle_event === "fuzz" ? 1000 : 80));
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const plan = { daily_units: 10_000_000, monthly_units: 10_000_000 };

const { app: docApp } = probeApp();
const doc = await (await docApp.request("/openapi.json")).json();
// The harness's probe routes are test-only stand-ins and document no errors; the rest is the real API.
const operations = operationsOf(doc).filter((o) => !o.path.startsWith("/api/v1/test/"));

/** Answers by status over the whole run: the figures for the closing note. */
const statuses = new Map<number, number>();

/** Whether each operation's request built from the document passed validation (reported at the end). */
const baselines = new Map<string, boolean>();

// known: cases found by fuzzing whose fix belongs to code other developers are editing now.
const KNOWN: { operationId: string; why: string; matches: (problem: string) => boolean }[] = [];

async function fuzzOperation(operation: Operation) {
  const t = probeApp();
  const { secret, id } = await tokenFor(t.deps, { plan, scopes: ["sii:read", "sii:write", "settings:read", "settings:write"] });
  const credentials: [string, string][] =
    operation.auth === "api" ? [["x-api-token", secret]] : operation.auth === "admin" ? [["authorization", `Bearer ${ADMIN}`]] : [];
  const base = baselineOf(doc, operation);
  const used = async () => (await t.deps.quota.peek(id, plan, t.deps.clock.now())).daily.used;
  const plain = await t.app.request(toRequest("http://gateway.test", plainRequest(operation, base, credentials)));
  const plainBody: Loose = await plain.json().catch(() => undefined);
  const baselineErrors = errorKeys(plainBody);
  baselines.set(operation.operationId, plainBody?.error_code !== "VALIDATION_ERROR");

  await fc.assert(
    fc.asyncProperty(caseArbitrary, async (c) => {
      const { request, mutation } = buildCase(operation, base, c, credentials);
      const before = await used();
      const res = await t.app.request(toRequest("http://gateway.test", request));
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const type = res.headers.get("content-type") ?? "";
      const body: Loose = type.includes("json") ? await res.json().catch(() => undefined) : await res.arrayBuffer().then(() => undefined);
      const problems = checkAnswer(operation, mutation, res.status, type, body, baselineErrors, plainBody?.message);
      if (res.status >= 400 && UNCHARGED.has(body?.error_code) && (await used()) !== before)
        problems.push("a rejected request consumed quota");
      const known = problems.filter((p) => KNOWN.some((k) => k.operationId === operation.operationId && k.matches(p)));
      const open = problems.filter((p) => !known.includes(p));
      if (open.length > 0) {
        const shown = { ...request, body: request.body?.slice(0, 300), headers: request.headers.map(([k, v]) => [k, v.slice(0, 60)]) };
        throw new Error(
          `${operation.method} ${operation.path}: ${open.join("; ")}\n  seed ${SEED} (FUZZ_SEED=${SEED} replays)\n  mutation ${JSON.stringify(mutation)?.slice(0, 300)}\n  request ${JSON.stringify(shown)}\n  answer ${res.status} ${JSON.stringify(body)?.slice(0, 600)}`,
        );
      }
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
}

afterAll(() => {
  const total = [...statuses.values()].reduce((a, b) => a + b, 0);
  const clean = [...baselines.values()].filter(Boolean).length;
  const byStatus = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}:${n}`);
  console.log(
    `fuzz: ${total} cases over ${operations.length} operations (seed ${SEED}); ${clean} baselines pass validation; ${byStatus.join(" ")}`,
  );
});

describe(`fuzzing ${operations.length} operations of /openapi.json, ${RUNS} cases each (seed ${SEED})`, () => {
  it("covers every operation of the document", () => {
    expect(operations.length).toBeGreaterThan(40);
    expect(operations.map((o) => o.operationId)).toContain("post_sii_dte_caf_solicitar");
  });

  it("a body sent as anything but JSON is 415, documented, naming the content-type header, and costs nothing", async () => {
    const t = probeApp();
    const { secret } = await tokenFor(t.deps, { plan });
    const withBody = operations.filter((o) => o.bodySchema && o.auth === "api");
    expect(withBody.length).toBeGreaterThan(20);
    for (const operation of withBody) {
      expect(Object.keys(operation.op.responses), operation.path).toContain("415");
      const request = plainRequest(operation, baselineOf(doc, operation), [["x-api-token", secret]]);
      request.headers = request.headers.map(([k, v]) => (k === "content-type" ? [k, "text/plain"] : [k, v]));
      const res = await t.app.request(toRequest("http://gateway.test", request));
      const body: Loose = await res.json();
      expect([res.status, body.error_code, body.errors?.[0]?.path, res.headers.get("x-quota-units")], operation.path).toEqual([
        415,
        "HTTP_415",
        "content-type",
        "0",
      ]);
    }
  });

  it.each(operations.map((o) => [`${o.method} ${o.path}`, o] as const))("%s", async (_name, operation) => {
    await fuzzOperation(operation);
  });
});
