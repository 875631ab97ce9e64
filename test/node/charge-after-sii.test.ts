// Once an operation has called the SII, a later refusal is charged: the SII did the work. Each
// case was free before (a VALIDATION_ERROR was refunded whatever had been called), which made the
// SII answer for nothing: a folio request over MAX_AUTOR, an annulment of annulled folios, and an
// async detail asked early (whose refusal also tells the file's state: a free `estado`).
import { describe, expect, it } from "vitest";
import { Granted } from "../../src/routes/caf/solicitar.ts";
import { JobEnvelope } from "../../src/routes/rcv/schema.ts";
import { UsageEnvelope } from "../../src/routes/usage/get.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { sandboxTransport, simulatorOf } from "../../src/sandbox/transport.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
const juanaPem = { auth: { cert: { "cert-data": juana.certPem, "pkey-data": juana.keyPem } } };
const company = { auth: { pass: { rut: "76192083-9", clave: "sandbox76" } } };

async function setup() {
  const at = new Date("2026-11-22T15:00:00Z");
  const t = probeApp();
  t.deps.clock = { now: () => at };
  t.deps.sii = sandboxTransport(createDefaultSandbox({ now: () => at.getTime() }));
  const token = await tokenFor(t.deps, { plan: { daily_units: 10_000, monthly_units: 100_000 } });
  const post = (path: string, body: unknown) => postJson(t.app, token.secret, path, body);
  const used = async () => {
    const usage = (await answerOf(await t.app.request("/api/v1/usage", { headers: { "x-api-token": token.secret } }), UsageEnvelope)).data
      .usage;
    return [usage.daily.used, usage.monthly.used];
  };
  const sandbox = simulatorOf(t.deps.sii);
  const siiCalls = () => [...sandbox.state.calls.values()].reduce((sum, n) => sum + n, 0);
  return { post, used, siiCalls };
}

describe("a refusal after the SII was called is charged", () => {
  it("charges a folio request over the SII's MAX_AUTOR (the SII was asked for it)", async () => {
    const { post, used, siiCalls } = await setup();
    expect(await used()).toEqual([0, 0]);
    const res = await post("/api/v1/sii/dte/caf/solicitar/76192083-9/33/1001", juanaPem);
    expect([res.status, (await errorOf(res)).error_code]).toEqual([400, "VALIDATION_ERROR"]);
    expect(siiCalls()).toBeGreaterThan(0);
    expect(res.headers.get("x-quota-units")).toBe("5");
    expect(await used()).toEqual([5, 5]);
  });

  it("charges annulling folios the SII has already annulled", async () => {
    const { post, used, siiCalls } = await setup();
    const { data } = await answerOf(await post("/api/v1/sii/dte/caf/solicitar/76192083-9/33/10", juanaPem), Granted);
    const path = `/api/v1/sii/dte/caf/anular/76192083-9/33/${data.folio_inicial}/${data.folio_final}`;
    expect((await post(path, juanaPem)).status).toBe(200);
    expect(await used()).toEqual([10, 10]);
    const before = siiCalls();
    const again = await post(path, juanaPem);
    expect([again.status, (await errorOf(again)).details?.sii_message]).toEqual([400, expect.stringContaining("ANULADOS ANTERIORMENTE")]);
    expect(siiCalls()).toBeGreaterThan(before);
    expect(again.headers.get("x-quota-units")).toBe("5");
    expect(await used()).toEqual([15, 15]);
  });

  it("charges an async detail asked before the file is ready (its refusal tells the state)", async () => {
    const { post, used } = await setup();
    const requested = await post("/api/v1/sii/rcv/compras/async/solicitar/76192083-9/202405/33/REGISTRO", company);
    const job = (await answerOf(requested, JobEnvelope)).data;
    expect(await used()).toEqual([1, 1]);
    const early = await post(`/api/v1/sii/rcv/compras/async/detalle/76192083-9/202405/${job.solicitud_id}/33/REGISTRO`, company);
    expect([early.status, (await errorOf(early)).details?.estado]).toEqual([400, "CREADO"]);
    expect(early.headers.get("x-quota-units")).toBe("2");
    expect(await used()).toEqual([3, 3]);
  });

  it("still gives back a refusal that never reached the SII", async () => {
    const { post, used, siiCalls } = await setup();
    const res = await post("/api/v1/sii/dte/caf/anular/76192083-9/33/20/10", juanaPem);
    expect(res.status).toBe(400);
    expect(siiCalls()).toBe(0);
    expect(res.headers.get("x-quota-units")).toBe("0");
    expect(await used()).toEqual([0, 0]);
  });
});
