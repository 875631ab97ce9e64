// The RCV download job through the API, on the sandbox's clock: the request made by the call that starts
// it, its state asked on the jobs' cadence, the file fetched and kept sealed for 24 hours, read as the
// by-hand `async/detalle` reads it, then erased; a session the SII drops waits for `resume`; what the SII's
// trouble, another account, no token or a wrong scope meet.
import { describe, expect, it } from "vitest";
import type { JobQueue, JobRecord } from "../../src/ports/jobs.ts";
import { EventsPage, JobCreated, JobEnvelope } from "../../src/routes/jobs/schema.ts";
import { FileEnvelope } from "../../src/routes/rcv/schema.ts";
import { SESSION_TTL_MS } from "../../src/sandbox/auth.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { rcvDocuments } from "../../src/sandbox/rcv.ts";
import { sandboxTransport, simulatorOf } from "../../src/sandbox/transport.ts";
import { runDueJobs } from "../../src/services/job-runner.ts";
import { MAX_JOB_DOCUMENTS, RESULT_KEPT_MS } from "../../src/services/rcv-download-job.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const COMPANY = "76192083-9";
const CLAVE = "sandbox76";
const company = { pass: { rut: COMPANY, clave: CLAVE } };
const MINUTE = 60_000;

/** A gateway and a sandbox, each on a clock of its own (`later` moves both, `gatewayLater` the gateway's only). */
async function setup() {
  const gateway = { at: new Date("2026-11-22T15:00:00Z").getTime() };
  const sii = { at: gateway.at };
  const t = probeApp();
  t.deps.clock = { now: () => new Date(gateway.at) };
  t.deps.sii = sandboxTransport(createDefaultSandbox({ now: () => sii.at }));
  const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
  const headers = { "x-api-token": token.secret };
  const post = (path: string, body: unknown, secret = token.secret) => postJson(t.app, secret, path, body);
  const get = (path: string, secret = token.secret) => t.app.request(path, { headers: { "x-api-token": secret } });
  const later = (ms: number) => {
    gateway.at += ms;
    sii.at += ms;
  };
  const gatewayLater = (ms: number) => {
    gateway.at += ms;
  };
  const run = () => runDueJobs(t.deps.jobs as unknown as JobQueue, t.deps);
  const download = (rcv: Record<string, unknown>, auth: unknown = company, secret = token.secret) =>
    post("/api/v1/jobs", { tipo: "descarga_rcv", auth, rcv }, secret);
  const job = async (id: string) => (await answerOf(await get(`/api/v1/jobs/${id}`), JobEnvelope)).data;
  const events = async () => (await answerOf(await get("/api/v1/events"), EventsPage)).data.events;
  const used = async () =>
    ((await (await get("/api/v1/usage")).json()) as { data: { usage: { daily: { used: number } } } }).data.usage.daily.used;
  const sandbox = simulatorOf(t.deps.sii);
  return { ...t, token, headers, post, get, later, gatewayLater, run, download, job, events, used, sandbox };
}

const PURCHASES_33 = { operacion: "COMPRA", rut: COMPANY, periodo: "202405", dte: 33 };

describe("the RCV download job", () => {
  it("requests the file at once, fetches it when TERMINADO, and answers it as async/detalle does for 24 hours, then erases it", async () => {
    const t = await setup();
    const started = await t.download(PURCHASES_33);
    expect([started.status, started.headers.get("x-quota-units")]).toEqual([201, "1"]);
    const { job: created, creado } = (await answerOf(started, JobCreated)).data;
    expect(creado).toBe(true);
    expect(created).toMatchObject({
      tipo: "descarga_rcv",
      estado: "pendiente",
      rcv: { ...PURCHASES_33, estado: "REGISTRO", solicitud_id: expect.any(Number) },
      descarga: { estado: "CREADO", registros: 0, resultado_hasta: null },
      envio: null,
      estado_sii: null,
      intentos: 0,
    });
    const early = await t.get(`/api/v1/jobs/${created.id}/result`);
    expect([early.status, (await errorOf(early)).error_code]).toEqual([409, "JOB_STATE"]);

    t.later(37_000);
    const charged = await t.used();
    expect((await t.run()).ran).toBe(1);
    // Charged as the same calls by hand: the state query 1 (async/estado), the file 2 (async/detalle, one block).
    expect((await t.used()) - charged).toBe(1 + 2);
    const expected = rcvDocuments(COMPANY, 202405, "COMPRA").filter((d) => d.estado === "REGISTRO" && d.tipo === 33);
    const done = await t.job(created.id);
    expect(done).toMatchObject({
      estado: "completado",
      intentos: 1,
      next_run_at: null,
      descarga: { estado: "TERMINADO", registros: expected.length },
    });
    expect(Date.parse(done.descarga!.resultado_hasta!) - Date.parse(done.updated_at)).toBeLessThanOrEqual(RESULT_KEPT_MS);
    const feed = await t.events();
    expect(feed.map((e) => [e.type, e.data])).toEqual([
      [
        "rcv_download.ready",
        { ...PURCHASES_33, estado: "REGISTRO", solicitud_id: created.rcv!.solicitud_id, registros: expected.length, job_id: created.id },
      ],
    ]);

    // The result is what the by-hand step 3 answers for the same request, and can be read again.
    const byHand = await t.post(`/api/v1/sii/rcv/compras/async/detalle/${COMPANY}/202405/${created.rcv!.solicitud_id}/33/REGISTRO`, {
      auth: company,
    });
    const expectedData = (await answerOf(byHand, FileEnvelope)).data;
    const before = await t.used();
    for (const _ of [1, 2]) {
      const result = await t.get(`/api/v1/jobs/${created.id}/result`);
      expect([result.status, result.headers.get("x-quota-units")]).toEqual([200, "1"]);
      expect((await answerOf(result, FileEnvelope)).data).toEqual(expectedData);
    }
    expect(await t.used()).toBe(before + 2);

    // Kept sealed: neither the clave, nor the session, nor a document's folio are in the stored job or its pieces.
    const stored = (await t.deps.jobs.get("acme", created.id)) as JobRecord;
    const kept = stored.progress?.resultado as { intento: number; piezas: number };
    const piece = await t.deps.jobs.resultPiece("acme", created.id, kept.intento, 0, t.deps.clock.now().getTime());
    expect(piece).toMatch(/^v1\./);
    expect(`${JSON.stringify(stored)}${piece}`).not.toContain(CLAVE);
    expect(piece).not.toContain(expected[0]!.rut);
    expect(stored.sealed).toBeNull();

    t.later(RESULT_KEPT_MS);
    const gone = await t.get(`/api/v1/jobs/${created.id}/result`);
    expect([gone.status, (await errorOf(gone)).error_code]).toEqual([410, "JOB_RESULT_GONE"]);
    // The runner's round erases the pieces themselves.
    await t.run();
    expect(await t.deps.jobs.resultPiece("acme", created.id, kept.intento, 0, 0)).toBeNull();
  });

  it("keeps a file of tens of thousands of documents in many pieces, answers it whole, and charges its read by blocks", async () => {
    const t = await setup();
    const rcv = { operacion: "COMPRA", rut: COMPANY, periodo: "201903", dte: 33 };
    const { job: created } = (await answerOf(await t.download(rcv), JobCreated)).data;
    t.later(37_000);
    await t.run();
    const stored = (await t.deps.jobs.get("acme", created.id)) as JobRecord;
    const kept = stored.progress?.resultado as { piezas: number };
    expect(kept.piezas).toBeGreaterThan(50);
    const expected = rcvDocuments(COMPANY, 201903, "COMPRA").filter((d) => d.estado === "REGISTRO" && d.tipo === 33);
    const units = Math.ceil(expected.length / 5000);
    expect(units).toBeGreaterThan(2);
    // Another token of the account whose plan cannot pay for the read: a 429 before any piece is read.
    const poor = await tokenFor(t.deps, { scopes: ["sii:read"], plan: { daily_units: units - 1, monthly_units: 1000 } });
    const refused = await t.get(`/api/v1/jobs/${created.id}/result`, poor.secret);
    expect([refused.status, (await errorOf(refused)).error_code]).toEqual([429, "QUOTA_EXCEEDED"]);
    const result = await t.get(`/api/v1/jobs/${created.id}/result`);
    expect(result.headers.get("x-quota-units")).toBe(String(units)); // 1 unit per started block of 5 000 documents
    const { data } = await answerOf(result, FileEnvelope);
    expect(data.registros).toBe(expected.length);
    expect(data.documentos.map((d) => d.folio)).toEqual(expected.map((d) => d.folio));
  });

  it("answers the live job for the same download without asking the SII again", async () => {
    const t = await setup();
    const first = (await answerOf(await t.download(PURCHASES_33), JobCreated)).data;
    const calls = t.sandbox.state.calls.get("rcv_async");
    const second = await t.download({ ...PURCHASES_33, estado: "REGISTRO" });
    expect(second.status).toBe(200);
    expect((await answerOf(second, JobCreated)).data).toMatchObject({ creado: false, job: { id: first.job.id } });
    expect(t.sandbox.state.calls.get("rcv_async")).toBe(calls);
    // Another state is another download.
    expect((await t.download({ ...PURCHASES_33, estado: "PENDIENTE" })).status).toBe(201);
  });

  it("asks again on the cadence while the SII prepares the file", async () => {
    const t = await setup();
    const { job: created } = (await answerOf(await t.download(PURCHASES_33), JobCreated)).data;
    t.gatewayLater(37_000); // the SII's clock has not moved: the request is still CREADO
    expect((await t.run()).ran).toBe(1);
    const waiting = await t.job(created.id);
    expect(waiting).toMatchObject({ estado: "pendiente", intentos: 1, descarga: { estado: "CREADO" } });
    const wait = Date.parse(waiting.next_run_at!) - Date.parse(waiting.updated_at);
    expect(wait).toBeGreaterThanOrEqual(24_000);
    expect(wait).toBeLessThanOrEqual(36_000);
    expect(await t.events()).toEqual([]);
    t.later(37_000);
    await t.run();
    expect((await t.job(created.id)).estado).toBe("completado");
  });

  it("waits in credenciales_requeridas once the SII drops the session, and resume with the clave finishes it", async () => {
    const t = await setup();
    const { job: created } = (await answerOf(await t.download(PURCHASES_33), JobCreated)).data;
    t.later(SESSION_TTL_MS + MINUTE);
    await t.run();
    expect(await t.job(created.id)).toMatchObject({ estado: "credenciales_requeridas", next_run_at: null });
    expect((await t.events()).map((e) => e.type)).toEqual(["job.credentials_required"]);
    expect((await t.run()).ran).toBe(0);

    const wrong = await t.post(`/api/v1/jobs/${created.id}/resume`, { auth: { pass: { rut: "11111111-1", clave: "x" } } });
    expect([wrong.status, (await errorOf(wrong)).errors?.[0]?.path]).toEqual([403, "auth.pass.rut"]);
    const resumed = await t.post(`/api/v1/jobs/${created.id}/resume`, { auth: company });
    expect([resumed.status, resumed.headers.get("x-quota-units")]).toEqual([200, "1"]);
    expect((await answerOf(resumed, JobEnvelope)).data.estado).toBe("pendiente");
    await t.run();
    expect((await t.job(created.id)).estado).toBe("completado");
    expect((await t.events()).map((e) => e.type)).toEqual(["job.credentials_required", "rcv_download.ready"]);
  });

  it("tries again after the SII's trouble without charging it, and ends with rcv_download.failed on a request the SII no longer has", async () => {
    const t = await setup();
    const { job: created } = (await answerOf(await t.download(PURCHASES_33), JobCreated)).data;
    t.later(37_000);
    t.sandbox.state.faults.push({ service: "rcv_async", fault: "http_5xx", remaining: 10 });
    const before = await t.used();
    await t.run();
    expect(await t.used()).toBe(before);
    expect(await t.job(created.id)).toMatchObject({ estado: "pendiente", intentos: 1, ultimo_error: expect.any(String) });

    t.sandbox.state.faults.length = 0;
    t.sandbox.state.rcvJobs.length = 0; // the SII lost the request
    t.later(40 * MINUTE);
    await t.run();
    const failed = await t.job(created.id);
    expect(failed).toMatchObject({ estado: "fallido", ultimo_error: expect.stringContaining("HTTP_404") });
    expect((await t.events()).map((e) => [e.type, e.data.solicitud_id])).toEqual([["rcv_download.failed", created.rcv!.solicitud_id]]);
    const result = await t.get(`/api/v1/jobs/${created.id}/result`);
    expect([result.status, (await errorOf(result)).error_code]).toEqual([409, "JOB_STATE"]);
  });

  it("refuses a file larger than a job keeps, pointing to async/detalle", async () => {
    const t = await setup();
    const { job: created } = (await answerOf(await t.download(PURCHASES_33), JobCreated)).data;
    // The SII declares one document more than a job keeps (getCtrlAsync's row, as the sandbox writes it).
    const row = {
      caProceso: "CONSDCV_C_RG",
      caId: created.rcv!.solicitud_id,
      caIdBLOB: "BLOB1",
      caPeriodo: 202405,
      caTipoDoc: 33,
      caEstado: "TERMINADO",
      caNumLineas: MAX_JOB_DOCUMENTS + 1,
    };
    const body = {
      data: [row],
      metaData: { info: null, errors: null },
      respEstado: { codRespuesta: 0, msgeRespuesta: null, codError: null },
    };
    const bytes = new TextEncoder().encode(JSON.stringify(body));
    t.sandbox.state.replays.push({
      service: "rcv_async",
      status: 200,
      headers: { "content-type": "application/json" },
      body: bytes,
      remaining: 1,
    });
    t.later(37_000);
    const before = await t.used();
    await t.run();
    expect(await t.used()).toBe(before + 1); // the state query only: no file was fetched
    const failed = await t.job(created.id);
    expect(failed).toMatchObject({ estado: "fallido", ultimo_error: expect.stringContaining("async/detalle") });
    expect((await t.events()).map((e) => e.type)).toEqual(["rcv_download.failed"]);
  });

  it("checks its input, the clave's taxpayer, the token and the scope; another account's job is a 404", async () => {
    const t = await setup();
    const bad = async (rcv: Record<string, unknown>, path: string) => {
      const answer = await t.download(rcv);
      expect([answer.status, (await errorOf(answer)).errors?.map((e) => e.path)]).toEqual([422, [path]]);
    };
    await bad({ ...PURCHASES_33, dte: 52 }, "rcv.dte");
    await bad({ ...PURCHASES_33, operacion: "VENTA", estado: "PENDIENTE" }, "rcv.estado");
    await bad({ ...PURCHASES_33, periodo: "201701" }, "rcv.periodo");
    const kind = await t.post("/api/v1/jobs", { tipo: "otra", auth: company, rcv: PURCHASES_33 });
    expect([kind.status, (await errorOf(kind)).errors?.[0]?.path]).toEqual([422, "tipo"]);
    const future = await t.download({ ...PURCHASES_33, periodo: "209901" });
    expect([future.status, (await errorOf(future)).errors?.[0]]).toEqual([
      400,
      expect.objectContaining({ path: "rcv.periodo", location: "body" }),
    ]);
    const other = await t.download(PURCHASES_33, { pass: { rut: "11111111-1", clave: "sandbox11" } });
    expect([other.status, (await errorOf(other)).errors?.[0]?.path]).toEqual([403, "auth.pass.rut"]);
    expect(t.sandbox.state.calls.get("rcv_async")).toBeUndefined();

    const { job: created } = (await answerOf(await t.download(PURCHASES_33), JobCreated)).data;
    const none = await t.app.request("/api/v1/jobs", { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    expect(none.status).toBe(401);
    const settingsOnly = await tokenFor(t.deps, { scopes: ["settings:read"] });
    const scope = await t.download(PURCHASES_33, company, settingsOnly.secret);
    expect([scope.status, (await errorOf(scope)).error_code]).toEqual([403, "INSUFFICIENT_SCOPE"]);
    const elsewhere = await tokenFor(t.deps, { account: "other", scopes: ["sii:read"] });
    const foreign = await t.get(`/api/v1/jobs/${created.id}/result`, elsewhere.secret);
    expect([foreign.status, (await errorOf(foreign)).error_code]).toEqual([404, "HTTP_404"]);
  });
});
