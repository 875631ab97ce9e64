// Webhooks through the API: endpoints registered, changed, tested, rotated and deleted; the account's events
// delivered by the endpoints' jobs on the sandbox's clock, signed so the npm `standardwebhooks` package (an
// independent implementation of Standard Webhooks 1.0) verifies them; retries on the schedule with one
// `webhook-id`, 410 and redirects, a crash between the receiver's 2xx and the commit; who may do what.
// Operations: /api/v1/webhooks/endpoints/{id} (GET, PATCH, DELETE, …/test, …/rotate-secret), /api/v1/events/{id}/redeliver.
// The deliveries go to a recording sender here; test/node/webhooks-e2e.test.ts sends them over real sockets.
import { describe, expect, it } from "vitest";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import { bytesToBase64 } from "../../src/lib/encoding.ts";
import type { JobQueue } from "../../src/ports/jobs.ts";
import { Sent } from "../../src/routes/envios/enviar.ts";
import { EventsPage, JobsPage } from "../../src/routes/jobs/schema.ts";
import {
  EndpointCreated,
  EndpointDeleted,
  EndpointEnvelope,
  EndpointsPage,
  EndpointTested,
  Redelivered,
  SecretRotated,
} from "../../src/routes/webhooks/schema.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { runDueJobs } from "../../src/services/job-runner.ts";
import { deliverEvents } from "../../src/services/webhook-delivery.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";
import { signedEnvelope } from "../support/envelope.ts";
import { delivered, type RecordingWebhookSender } from "../support/webhook-sender.ts";
import { verifies } from "../support/webhook-verify.ts";

const juanaCert = { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem };
const COMPANY = "76192083-9";
const ENDPOINTS = "/api/v1/webhooks/endpoints";
const RECEIVER = "https://erp.example.cl/hooks/sii";

async function setup() {
  const t = probeApp();
  const token = await tokenFor(t.deps);
  const juana = await parseCertificateCredential(juanaCert, new Date());
  const headers = { "x-api-token": token.secret, "content-type": "application/json" };
  const post = (path: string, body: unknown = {}) => postJson(t.app, token.secret, path, body);
  const get = (path: string) => t.app.request(path, { headers });
  const patch = (path: string, body: unknown) => t.app.request(path, { method: "PATCH", headers, body: JSON.stringify(body) });
  const del = (path: string) => t.app.request(path, { method: "DELETE", headers });
  const clock = (seconds: number) => postJson(t.app, "", "/sandbox/v1/clock", { avanzar_segundos: seconds });
  const queue = t.deps.jobs as unknown as JobQueue;
  const run = () => runDueJobs(queue, t.deps);
  const sender = t.deps.webhooks as RecordingWebhookSender;
  const create = async (body: Record<string, unknown> = {}) =>
    (await answerOf(await post(ENDPOINTS, { url: RECEIVER, ...body }), EndpointCreated)).data;
  const endpoint = async (id: string) => (await answerOf(await get(`${ENDPOINTS}/${id}`), EndpointEnvelope)).data;
  /** Sends an envelope with `seguir` and runs its job to the verdict: one `dte_envio.processed` event. */
  const verdict = async (folio: number) => {
    const xml = await signedEnvelope(juana, COMPANY, [{ tipo: 33, folio, receptor: "22222222-2", total: 11_900 }]);
    const sent = await answerOf(
      await postJson(t.app, token.secret, "/api/v1/platform/dte/envios/enviar", {
        auth: { cert: juanaCert },
        xml: bytesToBase64(xml),
        seguir: true,
      }),
      Sent,
    );
    await clock(37);
    await run();
    return sent.data;
  };
  const bodies = () =>
    sender.sent.map((r) => JSON.parse(r.body) as { id: string; type: string; sequence: number; data: Record<string, unknown> });
  return { ...t, token, post, get, patch, del, clock, queue, run, sender, create, endpoint, verdict, bodies };
}

describe("webhook endpoints and their deliveries", () => {
  it("registers an endpoint with a whsec_ secret shown once; the verdict of a followed envelope is delivered once, verified by standardwebhooks", async () => {
    const { create, get, run, verdict, sender, bodies, endpoint } = await setup();
    const { endpoint: made, secreto } = await create({ descripcion: "ERP" });
    expect(secreto).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(made).toMatchObject({
      url: RECEIVER,
      eventos: null,
      descripcion: "ERP",
      activo: true,
      entrega: { last_sequence: 0, entregados: 0 },
    });
    const listed = await (await get(ENDPOINTS)).text();
    expect(listed).toContain(made.id);
    expect(listed).not.toContain(secreto.slice(6));
    await run(); // the endpoint's first look: nothing in the feed yet
    const envio = await verdict(21);
    // The verdict's round wrote the event and woke the endpoint; the next round delivers it.
    await run();
    expect(sender.sent).toHaveLength(1);
    const [request] = sender.sent;
    expect(request!.url).toBe(RECEIVER);
    expect(verifies(secreto, request!)).toBe(true);
    expect(bodies()[0]).toMatchObject({ type: "dte_envio.processed", sequence: 1, data: { track_id: envio.track_id, emisor: COMPANY } });
    expect(request!.headers["webhook-id"]).toBe(bodies()[0]!.id);
    expect((await endpoint(made.id)).entrega).toMatchObject({ last_sequence: 1, entregados: 1, reintentos: 0, fallando_desde: null });
    // Nothing more, however long.
    await run();
    expect(sender.sent).toHaveLength(1);
  });

  it("a receiver answering 500, 500, 200 gets three attempts on the schedule, with one webhook-id", async () => {
    const { create, run, verdict, sender, clock, endpoint } = await setup();
    const { endpoint: made, secreto } = await create();
    const answers = [500, 500, 200];
    sender.answer = () => delivered(answers.shift());
    await verdict(22);
    await run();
    expect(sender.sent).toHaveLength(1);
    expect((await endpoint(made.id)).entrega).toMatchObject({
      reintentos: 1,
      entregados: 0,
      ultimo_intento: { status: 500, entregado: false },
    });
    await run(); // the second attempt waits 5 s ± 10 %
    expect(sender.sent).toHaveLength(1);
    await clock(6);
    await run();
    expect(sender.sent).toHaveLength(2);
    await clock(4 * 60);
    await run(); // the third waits 5 min ± 10 %
    expect(sender.sent).toHaveLength(2);
    await clock(90);
    await run();
    expect(sender.sent).toHaveLength(3);
    expect(new Set(sender.sent.map((r) => r.headers["webhook-id"])).size).toBe(1);
    expect(new Set(sender.sent.map((r) => r.body)).size).toBe(1);
    expect(sender.sent.every((r) => verifies(secreto, r))).toBe(true);
    expect((await endpoint(made.id)).entrega).toMatchObject({ reintentos: 0, entregados: 1, fallando_desde: null });
  });

  it("honours Retry-After, does not follow a redirect, and a 410 disables the endpoint with an event", async () => {
    const { create, run, verdict, sender, clock, endpoint, patch, get } = await setup();
    const { endpoint: made } = await create();
    const answers = [
      { state: "answered" as const, status: 503, retryAfter: "120", body: "busy" },
      { state: "answered" as const, status: 302, retryAfter: null, body: "" },
      { state: "answered" as const, status: 410, retryAfter: null, body: "gone" },
    ];
    sender.answer = () => answers.shift() ?? delivered();
    await verdict(23);
    await run();
    await clock(60);
    await run();
    expect(sender.sent).toHaveLength(1); // 120 s asked, not the schedule's 5 s
    await clock(61);
    await run();
    expect(sender.sent).toHaveLength(2);
    expect((await endpoint(made.id)).entrega.ultimo_intento).toMatchObject({
      status: 302,
      entregado: false,
      error: expect.stringContaining("redirects are not followed"),
    });
    await clock(6 * 60);
    await run();
    expect(sender.sent).toHaveLength(3);
    const disabled = await endpoint(made.id);
    expect(disabled).toMatchObject({
      activo: false,
      motivo_desactivacion: "the receiver answered 410 Gone",
      entrega: { next_run_at: null },
    });
    const feed = (await answerOf(await get("/api/v1/events?type=webhook.endpoint_disabled"), EventsPage)).data.events;
    expect(feed).toEqual([expect.objectContaining({ data: expect.objectContaining({ endpoint_id: made.id }) })]);
    // Disabled: nothing is sent, not even its own disabling.
    await clock(24 * 3600);
    await run();
    expect(sender.sent).toHaveLength(3);
    // Enabled again, it goes on from where it stopped: the event it gave up on is not sent again, the next ones are.
    const enabled = await answerOf(await patch(`${ENDPOINTS}/${made.id}`, { activo: true }), EndpointEnvelope);
    expect(enabled.data).toMatchObject({ activo: true, motivo_desactivacion: null });
    await run();
    expect(sender.sent).toHaveLength(3);
  });

  it("a crash between the receiver's 2xx and the step's write sends the event once more, with the same webhook-id, and no more", async () => {
    const { create, run, verdict, sender, clock, queue, deps } = await setup();
    await create();
    await run();
    await verdict(24);
    // A runner leases the woken endpoint, delivers, and dies before its write.
    const [job] = await queue.lease(deps.clock.now().getTime(), 60_000, 25);
    expect(job?.kind).toBe("entrega_webhook");
    await deliverEvents(job!, deps);
    expect(sender.sent).toHaveLength(1);
    await run(); // held by the dead runner: nothing
    expect(sender.sent).toHaveLength(1);
    await clock(61);
    await run();
    await run();
    expect(sender.sent).toHaveLength(2);
    expect(sender.sent[1]!.headers["webhook-id"]).toBe(sender.sent[0]!.headers["webhook-id"]);
    await clock(3600);
    await run();
    expect(sender.sent).toHaveLength(2);
  });

  it("rotating the secret signs with both for 24 hours, then with the new one only", async () => {
    const { create, post, run, clock, sender } = await setup();
    const { endpoint: made, secreto: old } = await create();
    await run();
    const rotated = (await answerOf(await post(`${ENDPOINTS}/${made.id}/rotate-secret`), SecretRotated)).data;
    expect(rotated.secreto).not.toBe(old);
    await post(`${ENDPOINTS}/${made.id}/test`);
    await run();
    const [both] = sender.sent;
    expect(both!.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect([verifies(old, both!), verifies(rotated.secreto, both!)]).toEqual([true, true]);
    await clock(24 * 3600 + 60);
    await post(`${ENDPOINTS}/${made.id}/test`);
    await run();
    const [, only] = sender.sent;
    expect(only!.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect([verifies(old, only!), verifies(rotated.secreto, only!)]).toEqual([false, true]);
  });

  it("subscriptions: an endpoint receives only its types; a test goes to its own endpoint alone", async () => {
    const { create, post, run, verdict, sender } = await setup();
    const all = (await create({ url: "https://a.example.cl/" })).endpoint;
    const rejectedOnly = (await create({ url: "https://b.example.cl/", eventos: ["dte_envio.rejected"] })).endpoint;
    await run();
    await verdict(25);
    await run();
    expect(sender.sent.map((r) => r.url)).toEqual(["https://a.example.cl/"]);
    const tested = (await answerOf(await post(`${ENDPOINTS}/${rejectedOnly.id}/test`), EndpointTested)).data;
    expect(tested.event).toMatchObject({ type: "webhook.test", data: { endpoint_id: rejectedOnly.id } });
    await run();
    expect(sender.sent.map((r) => r.url)).toEqual(["https://a.example.cl/", "https://b.example.cl/"]);
    expect(JSON.parse(sender.sent[1]!.body)).toMatchObject({ id: tested.event.id, type: "webhook.test" });
    expect(all.id).not.toBe(rejectedOnly.id);
  });

  it("redelivers an event with the same webhook-id, to one endpoint or to every one subscribed", async () => {
    const { create, post, run, verdict, sender, get, app, token } = await setup();
    const { endpoint: made } = await create();
    await run();
    await verdict(26);
    await run();
    const [event] = (await answerOf(await get("/api/v1/events"), EventsPage)).data.events;
    const again = (await answerOf(await post(`/api/v1/events/${event!.id}/redeliver`), Redelivered)).data;
    expect(again.endpoints).toEqual([made.id]);
    await run();
    const one = (await answerOf(await post(`/api/v1/events/${event!.id}/redeliver`, { endpoint_id: made.id }), Redelivered)).data;
    expect(one.endpoints).toEqual([made.id]);
    await run();
    // No body at all (curl -X POST) names no endpoint: every subscribed one.
    const bare = await app.request(`/api/v1/events/${event!.id}/redeliver`, { method: "POST", headers: { "x-api-token": token.secret } });
    expect((await answerOf(bare, Redelivered)).data.endpoints).toEqual([made.id]);
    await run();
    expect(sender.sent.map((r) => r.headers["webhook-id"])).toEqual([event!.id, event!.id, event!.id, event!.id]);
    const unknown = await post("/api/v1/events/evt_aaaaaaaaaaaaaaaaaaaaaaaa/redeliver");
    expect([unknown.status, (await errorOf(unknown)).error_code]).toEqual([404, "HTTP_404"]);
  });

  it("changes an endpoint's URL and subscription, refuses a URL it would not deliver to, and deletes it", async () => {
    const { create, patch, del, get, endpoint } = await setup();
    const { endpoint: made } = await create();
    const changed = await answerOf(
      await patch(`${ENDPOINTS}/${made.id}`, { url: "https://otro.example.cl/", eventos: ["folios.low"] }),
      EndpointEnvelope,
    );
    expect(changed.data).toMatchObject({ url: "https://otro.example.cl/", eventos: ["folios.low"], descripcion: null });
    expect((await endpoint(made.id)).url).toBe("https://otro.example.cl/");
    for (const url of [
      "http://erp.example.cl/",
      "https://10.0.0.1/",
      "https://169.254.169.254/latest",
      "https://user:pw@erp.example.cl/",
      "ftp://erp.example.cl/",
    ]) {
      const refused = await patch(`${ENDPOINTS}/${made.id}`, { url });
      const error = await errorOf(refused);
      expect([url, refused.status, error.error_code, error.errors?.[0]?.path]).toEqual([url, 400, "VALIDATION_ERROR", "url"]);
    }
    const empty = await patch(`${ENDPOINTS}/${made.id}`, {});
    expect(empty.status).toBe(422);
    const repeated = await answerOf(await patch(`${ENDPOINTS}/${made.id}`, { eventos: ["folios.low", "folios.low"] }), EndpointEnvelope);
    expect(repeated.data.eventos).toEqual(["folios.low"]);
    expect((await answerOf(await del(`${ENDPOINTS}/${made.id}`), EndpointDeleted)).data).toEqual({ id: made.id, eliminado: true });
    const gone = await get(`${ENDPOINTS}/${made.id}`);
    expect([gone.status, (await errorOf(gone)).error_code]).toEqual([404, "HTTP_404"]);
    expect((await answerOf(await get(ENDPOINTS), EndpointsPage)).data.endpoints).toEqual([]);
  });

  it("in sandbox mode a loopback receiver over http is allowed; private and metadata addresses never", async () => {
    const { post } = await setup();
    expect((await post(ENDPOINTS, { url: "http://127.0.0.1:9999/hook" })).status).toBe(200);
    expect((await post(ENDPOINTS, { url: "http://localhost:9999/hook" })).status).toBe(200);
    for (const url of ["http://192.168.1.10/", "https://[::ffff:169.254.169.254]/", "https://100.64.0.1/"]) {
      const res = await post(ENDPOINTS, { url });
      expect([url, res.status, (await errorOf(res)).errors?.[0]?.path]).toEqual([url, 400, "url"]);
    }
  });

  it("at most 16 endpoints (409 WEBHOOKS_LIMIT); a deletion frees a place; the endpoints' jobs are not listed as jobs", async () => {
    const { create, post, del, get } = await setup();
    const made = [];
    for (let i = 0; i < 16; i++) made.push((await create({ url: `https://e${i}.example.cl/` })).endpoint);
    const full = await post(ENDPOINTS, { url: RECEIVER });
    expect([full.status, (await errorOf(full)).error_code]).toEqual([409, "WEBHOOKS_LIMIT"]);
    await del(`${ENDPOINTS}/${made[3]!.id}`);
    expect((await post(ENDPOINTS, { url: RECEIVER })).status).toBe(200);
    expect((await answerOf(await get(ENDPOINTS), EndpointsPage)).data.endpoints).toHaveLength(16);
    expect((await answerOf(await get("/api/v1/jobs"), JobsPage)).data).toEqual({ jobs: [], next_before: null });
  });

  it("a redelivery refused for one endpoint (100 events already waiting) changes none of them", async () => {
    const { create, run, verdict, get, post, deps, endpoint } = await setup();
    const a = (await create({ url: "https://a.example.cl/" })).endpoint;
    const b = (await create({ url: "https://b.example.cl/" })).endpoint;
    await verdict(28);
    await run();
    const [event] = (await answerOf(await get("/api/v1/events"), EventsPage)).data.events;
    const busy = (await deps.jobs.get("acme", b.id))!;
    const waiting = Array.from({ length: 100 }, (_, i) => ({
      event_id: `evt_${i}`,
      sequence: 1000 + i,
      intentos: 1,
      siguiente: Date.now() + 3600_000,
    }));
    await deps.jobs.change("acme", b.id, ["pendiente"], { ...busy, progress: { ...busy.progress, reintentos: waiting } }, [], Date.now());
    const refused = await post(`/api/v1/events/${event!.id}/redeliver`);
    expect([refused.status, (await errorOf(refused)).error_code]).toEqual([409, "WEBHOOK_STATE"]);
    expect((await endpoint(a.id)).entrega.reintentos).toBe(0);
    expect((await endpoint(b.id)).entrega.reintentos).toBe(100);
  });

  it("a test or redelivery to a disabled endpoint is a 409 WEBHOOK_STATE", async () => {
    const { create, patch, post } = await setup();
    const { endpoint: made } = await create();
    await patch(`${ENDPOINTS}/${made.id}`, { activo: false });
    const test = await post(`${ENDPOINTS}/${made.id}/test`);
    expect([test.status, (await errorOf(test)).error_code]).toEqual([409, "WEBHOOK_STATE"]);
  });
});

describe("webhooks: who may see and do what", () => {
  it("another account's endpoint is a 404 to every operation, and absent from its list", async () => {
    const { create, app, deps } = await setup();
    const { endpoint: made } = await create();
    const other = await tokenFor(deps, { account: "other" });
    const headers = { "x-api-token": other.secret, "content-type": "application/json" };
    for (const [method, path, body] of [
      ["GET", `${ENDPOINTS}/${made.id}`, undefined],
      ["PATCH", `${ENDPOINTS}/${made.id}`, JSON.stringify({ activo: false })],
      ["DELETE", `${ENDPOINTS}/${made.id}`, undefined],
      ["POST", `${ENDPOINTS}/${made.id}/test`, "{}"],
      ["POST", `${ENDPOINTS}/${made.id}/rotate-secret`, "{}"],
    ] as const) {
      const res = await app.request(path, { method, headers, body });
      expect([method, path, res.status, (await errorOf(res)).error_code]).toEqual([method, path, 404, "HTTP_404"]);
    }
    expect((await answerOf(await app.request(ENDPOINTS, { headers }), EndpointsPage)).data.endpoints).toEqual([]);
  });

  it("another account cannot redeliver this account's event, nor send it to this account's endpoint", async () => {
    const { create, run, verdict, get, deps, app } = await setup();
    const { endpoint: made } = await create();
    await verdict(27);
    await run();
    const [event] = (await answerOf(await get("/api/v1/events"), EventsPage)).data.events;
    const other = await tokenFor(deps, { account: "other" });
    for (const body of [{}, { endpoint_id: made.id }]) {
      const res = await postJson(app, other.secret, `/api/v1/events/${event!.id}/redeliver`, body);
      expect([res.status, (await errorOf(res)).error_code]).toEqual([404, "HTTP_404"]);
    }
  });

  it("the secret is kept sealed: not in the stored endpoint, the logs, or any later answer", async () => {
    const { create, get, patch, post, deps, logs } = await setup();
    const { endpoint: made, secreto } = await create();
    const key = secreto.slice("whsec_".length);
    const stored = JSON.stringify(await deps.jobs.get("acme", made.id));
    expect(stored).toContain(made.id);
    const answers = [
      await (await get(ENDPOINTS)).text(),
      await (await get(`${ENDPOINTS}/${made.id}`)).text(),
      await (await patch(`${ENDPOINTS}/${made.id}`, { descripcion: "x" })).text(),
      await (await post(`${ENDPOINTS}/${made.id}/test`)).text(),
      await (await get("/api/v1/events")).text(),
    ];
    for (const text of [stored, JSON.stringify(logs), ...answers]) expect(text).not.toContain(key);
  });

  it("no token is a 401; reading needs settings:read and every change settings:write", async () => {
    const { app, deps } = await setup();
    const id = "we_8f2k4m6q1s3u5w7y9a0c2e4g";
    const reads: [string, string][] = [
      ["GET", ENDPOINTS],
      ["GET", `${ENDPOINTS}/${id}`],
    ];
    const writes: [string, string][] = [
      ["POST", ENDPOINTS],
      ["PATCH", `${ENDPOINTS}/${id}`],
      ["DELETE", `${ENDPOINTS}/${id}`],
      ["POST", `${ENDPOINTS}/${id}/test`],
      ["POST", `${ENDPOINTS}/${id}/rotate-secret`],
      ["POST", "/api/v1/events/evt_aaaaaaaaaaaaaaaaaaaaaaaa/redeliver"],
    ];
    const readOnly = await tokenFor(deps, { scopes: ["settings:read"] });
    const siiOnly = await tokenFor(deps, { scopes: ["sii:read", "sii:write"] });
    for (const [method, path] of [...reads, ...writes]) {
      const body = method === "POST" || method === "PATCH" ? "{}" : undefined;
      const anonymous = await app.request(path, { method, body, headers: { "content-type": "application/json" } });
      expect([method, path, anonymous.status]).toEqual([method, path, 401]);
      const token = reads.some(([m, p]) => m === method && p === path) ? siiOnly : readOnly;
      const wrong = await app.request(path, { method, body, headers: { "content-type": "application/json", "x-api-token": token.secret } });
      expect([method, path, wrong.status, (await errorOf(wrong)).error_code]).toEqual([method, path, 403, "INSUFFICIENT_SCOPE"]);
    }
  });
});
