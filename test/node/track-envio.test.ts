// One step of the job that follows an envelope, on each of its paths: still processing (asked again on
// the cadence), the SII's outage (tried again, not paid for), the quota used up (back when it resets),
// the API token deleted (the job ends), the taxpayer's pacing slot taken (back when it is free); and
// the cadence itself. The verdicts and the token's expiry run end to end in jobs.test.ts.
import { describe, expect, it } from "vitest";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import { bytesToBase64 } from "../../src/lib/encoding.ts";
import type { JobRecord } from "../../src/ports/jobs.ts";
import { Sent } from "../../src/routes/envios/enviar.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { nextDelayMs } from "../../src/services/job-cadence.ts";
import { trackSubmission } from "../../src/services/track-envio.ts";
import { answerOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";
import { signedEnvelope } from "../support/envelope.ts";

const juanaCert = { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem };
const COMPANY = "76192083-9";

/** A job just started by `envios/enviar` with `seguir`, as its store holds it. */
async function started(plan = { daily_units: 1000, monthly_units: 10000 }) {
  const t = probeApp();
  const token = await tokenFor(t.deps, { scopes: ["sii:read", "sii:write"], plan });
  const juana = await parseCertificateCredential(juanaCert, new Date());
  const xml = await signedEnvelope(juana, COMPANY, [{ tipo: 33, folio: 61, receptor: "22222222-2", total: 11_900 }]);
  const res = await postJson(t.app, token.secret, "/api/v1/platform/dte/envios/enviar", {
    auth: { cert: juanaCert },
    xml: bytesToBase64(xml),
    seguir: true,
  });
  const { seguimiento } = (await answerOf(res, Sent)).data;
  const job = (await t.deps.jobs.get("acme", seguimiento!.id)) as JobRecord;
  const used = async () => (await t.deps.quota.peek(token.id, plan, t.deps.clock.now())).daily.used;
  return { ...t, job, token, used, sandbox: simulatorOf(t.deps.sii) };
}

describe("a step of seguimiento_envio", () => {
  it("keeps the SII token sealed: the record holds no token in the clear", async () => {
    const { job, sandbox } = await started();
    const tokens = [...sandbox.state.tokens.keys()];
    expect(tokens.length).toBeGreaterThan(0);
    for (const token of tokens) expect(JSON.stringify(job)).not.toContain(token);
  });

  it("still processing: records what the SII said and asks again on the cadence, charged one unit", async () => {
    const { job, deps, used } = await started();
    const before = await used();
    const now = deps.clock.now().getTime();
    const { update, events } = await trackSubmission(job, deps); // at once: the envelope is still REC
    expect(events).toEqual([]);
    expect(update).toMatchObject({ estado: "pendiente", runs: 1, error: null, progress: { estado: "REC", resultado: "procesando" } });
    expect(update.due! - now).toBeGreaterThanOrEqual(24_000);
    expect(update.due! - now).toBeLessThanOrEqual(36_000 + 1_000);
    expect(await used()).toBe(before + 1);
  });

  it("an SII outage is tried again later and not paid for", async () => {
    const { job, deps, used, sandbox } = await started();
    const before = await used();
    sandbox.state.faults.push({ service: "envio_status", fault: "maintenance", remaining: 5 });
    const { update, events } = await trackSubmission(job, deps);
    expect(events).toEqual([]);
    expect(update).toMatchObject({ estado: "pendiente", runs: 1 });
    expect(update.error).toBeTruthy();
    expect(update.due).toBeGreaterThan(deps.clock.now().getTime());
    expect(await used()).toBe(before);
  });

  it("a quota used up brings the job back when the window resets, asking nothing", async () => {
    const { job, deps, sandbox } = await started({ daily_units: 5, monthly_units: 100 });
    const asked = sandbox.state.calls.get("envio_status") ?? 0;
    const { update, events } = await trackSubmission(job, deps); // enviar took the day's 5 units
    expect(events).toEqual([]);
    expect(update.estado).toBe("pendiente");
    expect(update.error).toMatch(/quota/);
    const midnight = new Date(deps.clock.now());
    midnight.setUTCHours(24, 0, 0, 0);
    expect(update.due).toBe(midnight.getTime());
    expect(sandbox.state.calls.get("envio_status") ?? 0).toBe(asked);
  });

  it("ends with job.failed when the API token that started it is deleted", async () => {
    const { job, deps, token } = await started();
    await deps.tokens.delete(token.id);
    const { update, events } = await trackSubmission(job, deps);
    expect(update).toMatchObject({ estado: "fallido", due: null, sealed: null });
    expect(events.map((e) => e.type)).toEqual(["job.failed"]);
  });

  it("comes back when the taxpayer's pacing slot is free, asking nothing meanwhile", async () => {
    const { job, deps, sandbox } = await started();
    deps.sii = { ...deps.sii, mode: "live" }; // the live SII is paced (1.2 s per taxpayer)
    const now = deps.clock.now();
    await deps.sessions.reserve(`${COMPANY}|pace`, 1_200, now, 0); // a request took the slot
    const asked = sandbox.state.calls.get("envio_status") ?? 0;
    const { update, events } = await trackSubmission(job, deps);
    expect(events).toEqual([]);
    expect(update.due! - now.getTime()).toBeGreaterThan(0);
    expect(update.due! - now.getTime()).toBeLessThanOrEqual(1_200);
    expect(update.runs).toBe(job.runs);
    expect(sandbox.state.calls.get("envio_status") ?? 0).toBe(asked);
  });
});

describe("the cadence", () => {
  it("is 30 s, 30 s, 1 min, 2 min, 5 min, then 10 min, each within ±20 %", () => {
    const bases = [30, 30, 60, 120, 300, 600, 600, 600].map((s) => s * 1000);
    bases.forEach((base, runs) => {
      expect(nextDelayMs(runs, () => 0)).toBe(base * 0.8);
      expect(nextDelayMs(runs, () => 0.5)).toBe(base);
      expect(nextDelayMs(runs, () => 0.999_999)).toBeLessThanOrEqual(base * 1.2);
      expect(nextDelayMs(runs, () => 0.999_999)).toBeGreaterThan(base * 1.19);
    });
  });
});
