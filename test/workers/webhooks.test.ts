// Webhooks on Workers in workerd: an endpoint registered through the Worker is a job in the account's Durable
// Object; the verdict event a job of that object writes wakes it (the object's alarm is brought forward), and
// the next alarm makes the attempt from inside the object. No receiver is reachable from the test pool, so
// the attempt fails and is recorded for another try: the wake, the alarm and the step are what is proven
// here; deliveries over real sockets are tested on Node (test/node/webhooks-e2e.test.ts).
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type WorkerEnv, workerDeps } from "../../src/entry/worker.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { ADMIN_HEADERS, fetchWorker } from "./worker.ts";

const bindings = env as unknown as WorkerEnv;

describe("webhooks through the Worker", () => {
  it("a verdict event wakes the account's endpoint, whose next alarm attempts the delivery and keeps it for a retry", async () => {
    simulatorOf((await workerDeps(bindings)).sii).state.rough = null;
    const account = `acct_${crypto.randomUUID()}`;
    const issued = await fetchWorker("/admin/v1/tokens", {
      method: "POST",
      headers: ADMIN_HEADERS,
      body: JSON.stringify({ name: "webhooks", account, scopes: ["sii:read", "settings:read", "settings:write"] }),
    });
    const { token } = ((await issued.json()) as { data: { token: string } }).data;
    const headers = { "x-api-token": token, "content-type": "application/json" };
    const registered = await fetchWorker("/api/v1/webhooks/endpoints", {
      method: "POST",
      headers,
      body: JSON.stringify({ url: "https://hooks.example.invalid/sii" }),
    });
    expect(registered.status).toBe(200);
    const { endpoint, secreto } = ((await registered.json()) as { data: { endpoint: { id: string }; secreto: string } }).data;
    expect(secreto).toMatch(/^whsec_/);
    const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
    const created = await fetchWorker("/api/v1/jobs", {
      method: "POST",
      headers,
      body: JSON.stringify({
        auth: { cert: { "cert-data": juana.certPem, "pkey-data": juana.keyPem } },
        tipo: "seguimiento_envio",
        envio: { emisor: "76192083-9", track_id: "0260000001", servicio: "dte", ambiente: "0" },
      }),
    });
    expect(created.status).toBe(201);
    await fetchWorker("/sandbox/v1/clock", { method: "POST", headers: ADMIN_HEADERS, body: JSON.stringify({ avanzar_segundos: 65 }) });
    const stub = bindings.JOBS.get(bindings.JOBS.idFromName(account));
    // The round that reaches the verdict writes the event and wakes the endpoint: the alarm is set for now.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const feed = ((await (await fetchWorker("/api/v1/events", { headers })).json()) as { data: { events: { id: string; type: string }[] } })
      .data.events;
    expect(feed.map((e) => e.type)).toEqual(["dte_envio.processed"]);
    const alarm = await runInDurableObject(stub, (_o, state) => state.storage.getAlarm());
    expect(alarm).not.toBeNull();
    expect(alarm! - Date.now()).toBeLessThan(70_000);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const read = await fetchWorker(`/api/v1/webhooks/endpoints/${endpoint.id}`, { headers });
    const { entrega } = ((await read.json()) as { data: { entrega: Record<string, unknown> } }).data;
    expect(entrega).toMatchObject({
      last_sequence: 1,
      reintentos: 1,
      entregados: 0,
      ultimo_intento: { event_id: feed[0]!.id, entregado: false, status: null },
    });
    // The endpoint's job is not one of the account's jobs.
    const jobs = ((await (await fetchWorker("/api/v1/jobs", { headers })).json()) as { data: { jobs: { tipo: string }[] } }).data.jobs;
    expect(jobs.map((j) => j.tipo)).toEqual(["seguimiento_envio"]);
  }, 60_000);
});
