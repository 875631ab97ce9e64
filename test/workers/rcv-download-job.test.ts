// The RCV download job on Workers in workerd: started through the Worker (the SII asked for the file in the
// taxpayer's session), run by the account's Durable Object alarm, its documents kept in the object's SQLite
// and answered by `GET /api/v1/jobs/{id}/result` as the by-hand `async/detalle` answers them; the object's
// alarm is then set for the documents' expiry, and that alarm erases them.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type WorkerEnv, workerDeps } from "../../src/entry/worker.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { ADMIN_HEADERS, fetchWorker } from "./worker.ts";

const bindings = env as unknown as WorkerEnv;
const COMPANY = "76192083-9";
const auth = { pass: { rut: COMPANY, clave: "sandbox76" } };

describe("the RCV download job through the Worker", () => {
  it("fetches the file at the alarm after TERMINADO, answers it as async/detalle does, and erases it at the alarm 24 h later", async () => {
    simulatorOf((await workerDeps(bindings)).sii).state.rough = null;
    const account = `acct_${crypto.randomUUID()}`;
    const issued = await fetchWorker("/admin/v1/tokens", {
      method: "POST",
      headers: ADMIN_HEADERS,
      body: JSON.stringify({ name: "rcv", account, scopes: ["sii:read"] }),
    });
    const { token } = ((await issued.json()) as { data: { token: string } }).data;
    const headers = { "x-api-token": token, "content-type": "application/json" };
    const rcv = { operacion: "COMPRA", rut: COMPANY, periodo: "202405", dte: 33 };
    const created = await fetchWorker("/api/v1/jobs", {
      method: "POST",
      headers,
      body: JSON.stringify({ tipo: "descarga_rcv", auth, rcv }),
    });
    expect(created.status).toBe(201);
    const { job } = ((await created.json()) as { data: { job: { id: string; rcv: { solicitud_id: number } } } }).data;
    const clock = (seconds: number) =>
      fetchWorker("/sandbox/v1/clock", { method: "POST", headers: ADMIN_HEADERS, body: JSON.stringify({ avanzar_segundos: seconds }) });
    await clock(40);
    const stub = bindings.JOBS.get(bindings.JOBS.idFromName(account));
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const read = ((await (await fetchWorker(`/api/v1/jobs/${job.id}`, { headers })).json()) as { data: Record<string, unknown> }).data;
    expect(read).toMatchObject({ estado: "completado", descarga: { estado: "TERMINADO" } });

    const byHand = await fetchWorker(`/api/v1/sii/rcv/compras/async/detalle/${COMPANY}/202405/${job.rcv.solicitud_id}/33/REGISTRO`, {
      method: "POST",
      headers,
      body: JSON.stringify({ auth }),
    });
    const expected = ((await byHand.json()) as { data: { registros: number } }).data;
    expect(expected.registros).toBeGreaterThan(0);
    const result = await fetchWorker(`/api/v1/jobs/${job.id}/result`, { headers });
    expect(result.status).toBe(200);
    expect(((await result.json()) as { data: unknown }).data).toEqual(expected);

    const pieces = () =>
      runInDurableObject(stub, (_o, state) => state.storage.sql.exec("SELECT COUNT(*) AS n FROM job_results").one().n as number);
    expect(await pieces()).toBeGreaterThan(0);
    // Nothing else is due: the object's alarm waits for the documents' expiry.
    const alarm = await runInDurableObject(stub, (_o, state) => state.storage.getAlarm());
    const kept = Date.parse((read.descarga as { resultado_hasta: string }).resultado_hasta) - Date.parse(read.updated_at as string);
    // 24 h from when the documents were fetched, a moment before the job's write.
    expect(kept).toBeLessThanOrEqual(24 * 3600 * 1000);
    expect(kept).toBeGreaterThan(24 * 3600 * 1000 - 60_000);
    expect(alarm! - Date.now()).toBeGreaterThan(kept - 60_000);
    expect(alarm! - Date.now()).toBeLessThanOrEqual(kept + 1000);
    await clock(24 * 3600);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await pieces()).toBe(0);
    const gone = await fetchWorker(`/api/v1/jobs/${job.id}/result`, { headers });
    expect(gone.status).toBe(410);
  }, 60_000);
});
