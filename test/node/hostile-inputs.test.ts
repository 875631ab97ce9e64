// What the live Node server answers inputs that made the gateway's work grow faster than their
// size: each is refused (or answered) as below, naming the limit or the field. How long each holds
// the event loop, and how long another account waits meanwhile, is measured and gated by the
// bench (bench/stall.ts, `npm run bench -- --stall`), not here: wall-clock budgets fail on a busy
// machine.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_DOCUMENT_LINES } from "../../src/platform/batch-limits.ts";
import { errorOf } from "../support/answers.ts";
import { HOSTILE, type Input } from "../support/large-inputs.ts";
import { startTwoTenants, type TwoTenants } from "../support/two-tenants.ts";

let base = "";
let started: TwoTenants["started"];
let secretA = "";

beforeAll(async () => {
  ({ base, started, secretA } = await startTwoTenants("sii-gw-hostile-"));
});
afterAll(() => started.server.close());

/** Sends `input` from account A; its answer has the status the bench expects of it too. */
async function post(input: Input): Promise<Response> {
  const res = await fetch(`${base}${input.path}`, {
    method: "POST",
    headers: { "x-api-token": secretA, "content-type": "application/json" },
    body: await input.body(),
  });
  expect(res.status, "the status bench/stall.ts expects").toBe(input.status);
  return res;
}

/** The refusal of `input`: its status and error body. */
async function refusal(input: Input) {
  const res = await post(input);
  return { status: res.status, json: await errorOf(res) };
}

describe("key derivation with an attacker's iteration count", () => {
  it("an encrypted PKCS#8 key asking for 2 000 000 iterations: 400 AUTH_ERROR naming the limit", async () => {
    const { status, json } = await refusal(HOSTILE.pkcs8Iterations);
    expect([status, json.error_code]).toEqual([400, "AUTH_ERROR"]);
    expect(json.message).toMatch(/at most 100000 iterations/);
  });

  it("a PFX whose MAC and bags ask for 2 000 000 iterations: 400 AUTH_ERROR naming the limit", async () => {
    const { status, json } = await refusal(HOSTILE.pfxIterations);
    expect([status, json.error_code]).toEqual([400, "AUTH_ERROR"]);
    expect(json.errors?.[0]?.path).toBe("auth.cert.pfx-data");
  });
});

describe("key derivation at the limit", () => {
  it("a PBES2 key at the full 100 000 iterations is read (the placeholder CAF is what is refused)", async () => {
    const { status, json } = await refusal(HOSTILE.pbes2AtLimit);
    expect([status, json.error_code, json.errors?.[0]?.path]).toEqual([400, "VALIDATION_ERROR", "caf"]);
  });
});

describe("input that made a regular expression rescan", () => {
  it("cert-data of 15 000 BEGIN lines (within its 256 KiB limit)", async () => {
    const { status, json } = await refusal(HOSTILE.beginLines);
    expect([status, json.error_code, json.errors?.[0]?.path]).toEqual([400, "AUTH_ERROR", "auth.cert.cert-data"]);
  });

  it.each([
    [HOSTILE.commentsFormatos, "xml"],
    [HOSTILE.commentsVerificar, "xml"],
    [HOSTILE.commentsPdf, "xml"],
    [HOSTILE.commentsCaf, "caf"],
  ])("$0.name", async (input, field) => {
    const { status, json } = await refusal(input);
    expect([status, json.error_code]).toEqual([400, "VALIDATION_ERROR"]);
    expect(json.errors?.[0]?.path).toMatch(new RegExp(`^${field}`));
  });
});

describe("text fields that made the normalizer's patterns backtrack", () => {
  it.each([
    [HOSTILE.spacesName, 200],
    [HOSTILE.digitsQuantity, 400],
  ])("$0.name", async (input, expected) => {
    const res = await post(input);
    await res.arrayBuffer();
    expect(res.status).toBe(expected);
  });

  it(HOSTILE.unclosedTed.name, async () => {
    const res = await post(HOSTILE.unclosedTed);
    await res.arrayBuffer();
    expect(res.status).toBeLessThan(500);
  });
});

describe("work proportional to the input", () => {
  it("125 000 invalid lines: refused by their number at once, in a short answer", async () => {
    const { status, json } = await refusal(HOSTILE.tooManyLines);
    expect([status, json.error_code, json.errors?.[0]?.path]).toEqual([422, "VALIDATION_ERROR", "dte.Detalle"]);
    expect(JSON.stringify(json).length).toBeLessThan(5_000);
  });

  it("a field error per line of the longest document: the first 100 are listed and the rest counted", async () => {
    // Two problems a line (negative quantity and price): an answer of 500 000 entries (47 MB) before.
    const { status, json } = await refusal(HOSTILE.errorPerLine);
    expect([status, json.error_code]).toEqual([400, "VALIDATION_ERROR"]);
    expect(json.errors).toHaveLength(100);
    expect(json.details?.errors_total).toBe(2 * MAX_DOCUMENT_LINES);
    expect(JSON.stringify(json).length).toBeLessThan(20_000);
  });
});
