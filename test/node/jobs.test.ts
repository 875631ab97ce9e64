// Jobs through the API: an envelope sent with `seguir` (or a track id given to POST /api/v1/jobs) is
// followed on the sandbox's clock to exactly one verdict event; a token the SII stops honouring waits
// for `resume`; cancel, the feed's paging, and what another account, no token or a wrong scope meet.
import { describe, expect, it } from "vitest";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import { bytesToBase64 } from "../../src/lib/encoding.ts";
import type { JobQueue } from "../../src/ports/jobs.ts";
import { Sent } from "../../src/routes/envios/enviar.ts";
import { EventsPage, JobCreated, JobEnvelope, JobsPage } from "../../src/routes/jobs/schema.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { TOKEN_TTL_MS } from "../../src/sandbox/soap.ts";
import { runDueJobs } from "../../src/services/job-runner.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";
import { signedEnvelope } from "../support/envelope.ts";

const juanaCert = { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem };
const COMPANY = "76192083-9";
const ENVIAR = "/api/v1/platform/dte/envios/enviar";
const MINUTE = 60_000;

async function setup() {
  const t = probeApp();
  const token = await tokenFor(t.deps, { scopes: ["sii:read", "sii:write"] });
  const juana = await parseCertificateCredential(juanaCert, new Date());
  const headers = { "x-api-token": token.secret };
  const post = (path: string, body: unknown, extra: Record<string, string> = {}) => postJson(t.app, token.secret, path, body, extra);
  const get = (path: string) => t.app.request(path, { headers });
  const del = (path: string) => t.app.request(path, { method: "DELETE", headers });
  const clock = (seconds: number) => postJson(t.app, "", "/sandbox/v1/clock", { avanzar_segundos: seconds });
  const run = () => runDueJobs(t.deps.jobs as unknown as JobQueue, t.deps);
  const events = async (query = "") => (await answerOf(await get(`/api/v1/events${query}`), EventsPage)).data;
  const job = async (id: string) => (await answerOf(await get(`/api/v1/jobs/${id}`), JobEnvelope)).data;
  /** Sends a fresh envelope of folio `folio` and answers its track id. */
  const sent = async (folio: number, seguir = false, receptor = "22222222-2") => {
    const xml = await signedEnvelope(juana, COMPANY, [{ tipo: 33, folio, receptor, total: 11_900 }]);
    return (await answerOf(await post(ENVIAR, { auth: { cert: juanaCert }, xml: bytesToBase64(xml), seguir }), Sent)).data;
  };
  const follow = (track_id: string, extra: Record<string, string> = {}) =>
    post("/api/v1/jobs", { tipo: "seguimiento_envio", auth: { cert: juanaCert }, envio: { emisor: COMPANY, track_id } }, extra);
  return { ...t, token, juana, post, get, del, clock, run, events, job, sent, follow };
}

describe("following an envelope to its verdict (jobs)", () => {
  it("enviar with seguir answers the job; at its time it asks the SII once and writes exactly one processed event", async () => {
    const { sent, clock, run, events, job, get } = await setup();
    const envio = await sent(21, true);
    const seguimiento = envio.seguimiento!;
    expect(seguimiento).toMatchObject({
      tipo: "seguimiento_envio",
      estado: "pendiente",
      envio: { emisor: COMPANY, track_id: envio.track_id, servicio: "dte" },
      intentos: 0,
      estado_sii: null,
    });
    // First question 30 s ± 20 % after the job's creation.
    const wait = Date.parse(seguimiento.next_run_at!) - Date.parse(seguimiento.created_at);
    expect(wait).toBeGreaterThanOrEqual(24_000);
    expect(wait).toBeLessThanOrEqual(36_000);
    expect(Date.parse(seguimiento.expires_at) - Date.parse(seguimiento.created_at)).toBe(72 * 60 * MINUTE);

    expect((await run()).ran).toBe(0); // not due yet
    expect((await clock(37)).status).toBe(200);
    expect((await run()).ran).toBe(1);
    // The question was charged to the token that started the job (1 unit, as envios/estado).
    const usage = (await (await get("/api/v1/usage")).json()) as { data: { usage: { daily: { used: number } } } };
    expect(usage.data.usage.daily.used).toBe(5 + 1); // enviar's 5 units, then the job's one question
    const done = await job(seguimiento.id);
    expect(done).toMatchObject({
      estado: "completado",
      intentos: 1,
      next_run_at: null,
      ultimo_error: null,
      estado_sii: { estado: "EPR", resultado: "aceptado", documentos: [{ tipo: 33, informados: 1, aceptados: 1 }] },
    });
    // Nothing more to do, however late: one event.
    await clock(24 * 3600);
    expect((await run()).ran).toBe(0);
    const feed = await events();
    expect(feed.events).toEqual([
      {
        id: expect.stringMatching(/^evt_/),
        type: "dte_envio.processed",
        sequence: 1,
        created_at: expect.any(String),
        data: expect.objectContaining({ job_id: seguimiento.id, emisor: COMPANY, track_id: envio.track_id, resultado: "aceptado" }),
      },
    ]);
    expect(feed.last_sequence).toBe(1);
  });

  it("a rejected envelope ends the job with dte_envio.rejected", async () => {
    const { sent, clock, run, events } = await setup();
    await sent(22);
    const again = await sent(22, true, "60803000-K"); // the same folio a second time: the SII rejects it
    await clock(37);
    await run();
    expect((await events()).events.map((e) => [e.type, e.data.track_id, e.data.resultado])).toEqual([
      ["dte_envio.rejected", again.track_id, "rechazado"],
    ]);
  });

  it("POST /api/v1/jobs follows a track id once: a second request answers the live job (200, creado false)", async () => {
    const { sent, follow, get } = await setup();
    const { track_id } = await sent(23);
    const first = await follow(track_id!);
    expect(first.status).toBe(201);
    expect(first.headers.get("x-quota-units")).toBe("1");
    const created = (await answerOf(first, JobCreated)).data;
    expect(created.creado).toBe(true);
    const second = await follow(track_id!);
    expect(second.status).toBe(200);
    expect((await answerOf(second, JobCreated)).data).toMatchObject({ creado: false, job: { id: created.job.id } });
    const page = (await answerOf(await get("/api/v1/jobs"), JobsPage)).data;
    expect(page.jobs.map((j) => j.id)).toEqual([created.job.id]);
    expect(page.next_before).toBeNull();
  });

  it("waits in credenciales_requeridas when the SII no longer honours the token, and resume finishes it", async () => {
    const { sent, clock, run, events, job, post } = await setup();
    const { seguimiento } = await sent(24, true);
    await clock(TOKEN_TTL_MS / 1000 + 60); // the upload's token is past its hour
    await run();
    const waiting = await job(seguimiento!.id);
    expect(waiting).toMatchObject({ estado: "credenciales_requeridas", next_run_at: null });
    expect((await events()).events.map((e) => e.type)).toEqual(["job.credentials_required"]);
    expect((await run()).ran).toBe(0); // it waits: no question without a token

    const clave = await post(`/api/v1/jobs/${seguimiento!.id}/resume`, { auth: { pass: { rut: "11111111-1", clave: "sandbox11" } } });
    expect([clave.status, (await errorOf(clave)).errors?.[0]?.path]).toEqual([400, "auth.cert"]);
    const resumed = await post(`/api/v1/jobs/${seguimiento!.id}/resume`, { auth: { cert: juanaCert } });
    expect(resumed.status).toBe(200);
    expect((await answerOf(resumed, JobEnvelope)).data.estado).toBe("pendiente");
    expect((await run()).ran).toBe(1);
    expect((await job(seguimiento!.id)).estado).toBe("completado");
    expect((await events("?after=1")).events.map((e) => e.type)).toEqual(["dte_envio.processed"]);

    const late = await post(`/api/v1/jobs/${seguimiento!.id}/resume`, { auth: { cert: juanaCert } });
    expect([late.status, (await errorOf(late)).error_code]).toEqual([409, "JOB_STATE"]);
  });

  it("a cancelled job asks nothing more; cancelling it again is a 409", async () => {
    const { sent, clock, run, del, events } = await setup();
    const { seguimiento } = await sent(25, true);
    const cancelled = await del(`/api/v1/jobs/${seguimiento!.id}`);
    expect((await answerOf(cancelled, JobEnvelope)).data).toMatchObject({ estado: "cancelado", next_run_at: null });
    await clock(600);
    expect((await run()).ran).toBe(0);
    expect((await events()).events).toEqual([]);
    const again = await del(`/api/v1/jobs/${seguimiento!.id}`);
    expect([again.status, (await errorOf(again)).error_code]).toEqual([409, "JOB_STATE"]);
  });

  it("gives up after 72 hours without a verdict, with job.failed", async () => {
    const { sent, follow, clock, run, job, events, deps } = await setup();
    const { track_id } = await sent(26);
    // An SII that answers 'still processing' until the job's life is over is the same as one never asked:
    // the job's first look comes after its life.
    const created = (await answerOf(await follow(track_id!), JobCreated)).data.job;
    await clock(72 * 3600 + 60);
    await run();
    expect(await job(created.id)).toMatchObject({ estado: "fallido", next_run_at: null });
    expect((await job(created.id)).ultimo_error).toMatch(/72/);
    expect((await events()).events.map((e) => [e.type, e.data.job_id])).toEqual([["job.failed", created.id]]);
    expect(deps.sii.sandbox!.clockOffset()).toBeGreaterThan(72 * 3600 * 1000);
  });

  it("pages the feed by sequence and type", async () => {
    const { sent, clock, run, events } = await setup();
    for (const folio of [31, 32, 33]) await sent(folio, true);
    await clock(37);
    expect((await run()).ran).toBe(3);
    const all = await events();
    expect(all.events.map((e) => e.sequence)).toEqual([1, 2, 3]);
    const page = await events("?after=1&limit=1");
    expect([page.events.map((e) => e.sequence), page.last_sequence]).toEqual([[2], 2]);
    expect((await events("?after=3")).last_sequence).toBe(3);
    expect((await events("?type=job.failed")).events).toEqual([]);
  });
});

describe("jobs: who may see and do what", () => {
  it("another account's job is a 404 to read, cancel or resume, and absent from its lists and feed", async () => {
    const { sent, app, deps, clock, run } = await setup();
    const { seguimiento } = await sent(41, true);
    await clock(37);
    await run();
    const other = await tokenFor(deps, { account: "other", scopes: ["sii:read", "sii:write"] });
    const headers = { "x-api-token": other.secret };
    for (const res of [
      await app.request(`/api/v1/jobs/${seguimiento!.id}`, { headers }),
      await app.request(`/api/v1/jobs/${seguimiento!.id}`, { method: "DELETE", headers }),
      await postJson(app, other.secret, `/api/v1/jobs/${seguimiento!.id}/resume`, { auth: { cert: juanaCert } }),
    ])
      expect([res.status, (await errorOf(res)).error_code]).toEqual([404, "HTTP_404"]);
    expect((await answerOf(await app.request("/api/v1/jobs", { headers }), JobsPage)).data.jobs).toEqual([]);
    expect((await answerOf(await app.request("/api/v1/events", { headers }), EventsPage)).data.events).toEqual([]);
  });

  it("no token is a 401 and a token without sii:read a 403, on every jobs operation", async () => {
    const { app, deps } = await setup();
    const id = "job_4k2m9q7x1c8v3b6n5z0a2s4d";
    const calls: [string, string][] = [
      ["GET", "/api/v1/jobs"],
      ["GET", `/api/v1/jobs/${id}`],
      ["DELETE", `/api/v1/jobs/${id}`],
      ["POST", `/api/v1/jobs/${id}/resume`],
      ["POST", "/api/v1/jobs"],
      ["GET", "/api/v1/events"],
    ];
    const settingsOnly = await tokenFor(deps, { scopes: ["settings:read"] });
    for (const [method, path] of calls) {
      const body = method === "POST" ? JSON.stringify({}) : undefined;
      const anonymous = await app.request(path, { method, body, headers: { "content-type": "application/json" } });
      expect([path, anonymous.status], method).toEqual([path, 401]);
      const headers = { "content-type": "application/json", "x-api-token": settingsOnly.secret };
      const wrong = await app.request(path, { method, body, headers });
      expect([path, wrong.status, (await errorOf(wrong)).error_code], method).toEqual([path, 403, "INSUFFICIENT_SCOPE"]);
    }
  });

  it("names the field of a bad track id, and of an unknown job id", async () => {
    const { follow, get } = await setup();
    const bad = await errorOf(await follow("12ab"));
    expect([bad.error_code, JSON.stringify(bad)]).toEqual(["VALIDATION_ERROR", expect.stringContaining('"path":"envio.track_id"')]);
    const unknown = await get("/api/v1/jobs/job_nope");
    expect([unknown.status, (await errorOf(unknown)).error_code]).toEqual([400, "VALIDATION_ERROR"]);
    const missing = await get("/api/v1/jobs/job_4k2m9q7x1c8v3b6n5z0a2s4d");
    expect([missing.status, (await errorOf(missing)).error_code]).toEqual([404, "HTTP_404"]);
  });

  it("a dry run of enviar with seguir starts no job", async () => {
    const { post, juana, get } = await setup();
    const xml = await signedEnvelope(juana, COMPANY, [{ tipo: 33, folio: 51, receptor: "22222222-2", total: 11_900 }]);
    const res = await post(`${ENVIAR}?dry_run=true`, { auth: { cert: juanaCert }, xml: bytesToBase64(xml), seguir: true });
    expect((await answerOf(res, Sent)).data.seguimiento).toBeNull();
    expect((await answerOf(await get("/api/v1/jobs"), JobsPage)).data.jobs).toEqual([]);
  });
});
