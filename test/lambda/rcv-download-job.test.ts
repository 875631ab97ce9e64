// The RCV download job on the Lambda runtime: started through the app, run by the scheduled sweep over the
// DynamoDB table, its documents kept in pieces of the table (each under the item limit, with the TTL
// attribute that erases it) and answered as the by-hand `async/detalle` answers them; past 24 hours none
// is answered, whatever DynamoDB's TTL has not erased yet.
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { createLambdaDeps, sweepJobs } from "../../src/entry/lambda.ts";
import { localDynamoDb } from "../support/local-dynamodb.ts";

const local = localDynamoDb("rcv-download-lambda");
const ADMIN = "lambda-admin-token-of-at-least-32-chars";
const COMPANY = "76192083-9";
const auth = { pass: { rut: COMPANY, clave: "sandbox76" } };

async function setup(account: string) {
  const deps = await createLambdaDeps({
    ...local.env(),
    ADMIN_TOKEN: ADMIN,
  });
  const app = createApp(() => deps);
  const json = { "content-type": "application/json" };
  const issued = await app.request("/admin/v1/tokens", {
    method: "POST",
    headers: { ...json, authorization: `Bearer ${ADMIN}` },
    body: JSON.stringify({ name: "rcv", account, scopes: ["sii:read"] }),
  });
  const { token } = ((await issued.json()) as { data: { token: string } }).data;
  const headers = { ...json, "x-api-token": token };
  const post = (path: string, body: unknown) => app.request(path, { method: "POST", headers, body: JSON.stringify(body) });
  const get = (path: string) => app.request(path, { headers });
  const clock = (seconds: number) =>
    app.request("/sandbox/v1/clock", { method: "POST", headers: json, body: JSON.stringify({ avanzar_segundos: seconds }) });
  return { deps, post, get, clock, sweep: () => sweepJobs(deps.jobs, deps) };
}

describe("the RCV download job on Lambda", () => {
  it("keeps a file of thousands of documents in DynamoDB pieces, answers it whole, and none past 24 hours", async () => {
    const { deps, post, get, clock, sweep } = await setup("acct_rcv_lambda");
    const rcv = { operacion: "COMPRA", rut: COMPANY, periodo: "201902", dte: 33 };
    const created = await post("/api/v1/jobs", { tipo: "descarga_rcv", auth, rcv });
    expect(created.status).toBe(201);
    const { job } = ((await created.json()) as { data: { job: { id: string; rcv: { solicitud_id: number } } } }).data;
    await clock(40);
    await sweep();
    const read = ((await (await get(`/api/v1/jobs/${job.id}`)).json()) as { data: Record<string, unknown> }).data;
    expect(read).toMatchObject({ estado: "completado", descarga: { estado: "TERMINADO" } });
    const stored = await deps.jobs.get("acct_rcv_lambda", job.id);
    const kept = stored?.progress?.resultado as { intento: number; piezas: number };
    expect(kept.piezas).toBeGreaterThan(5);

    const byHand = await post(`/api/v1/sii/rcv/compras/async/detalle/${COMPANY}/201902/${job.rcv.solicitud_id}/33/REGISTRO`, { auth });
    const expected = ((await byHand.json()) as { data: { registros: number } }).data;
    const result = await get(`/api/v1/jobs/${job.id}/result`);
    expect(result.status).toBe(200);
    expect(((await result.json()) as { data: unknown }).data).toEqual(expected);

    await clock(24 * 3600);
    const gone = await get(`/api/v1/jobs/${job.id}/result`);
    expect(gone.status).toBe(410);
    expect(await deps.jobs.resultPiece("acct_rcv_lambda", job.id, kept.intento, 0, deps.clock.now().getTime())).toBeNull();
  }, 60_000);
});
