// dry_run is no free pass: every operation of /openapi.json is called with `?dry_run=1`. An
// operation without a preview refuses the parameter (400 naming it) instead of running for free;
// one with a preview answers it without a single call reaching the (sandbox) SII, whether the
// token's quota is spent or not. Charging follows what happened: a clave the SII refuses is charged.
import { createRoute, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import { bytesToBase64 } from "../../src/lib/encoding.ts";
import { registerOperation } from "../../src/platform/operation.ts";
import { DryRun } from "../../src/platform/params.ts";
import { UsageEnvelope } from "../../src/routes/usage/get.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";
import { signedDte, signedEnvelope } from "../support/envelope.ts";
import { type Baseline, baselineOf, type Operation, operationsOf, plainRequest, toRequest } from "../support/fuzz.ts";

const { app: docApp } = probeApp();
const doc = await (await docApp.request("/openapi.json")).json();
const operations = operationsOf(doc).filter((o) => o.auth === "api" && !o.path.startsWith("/api/v1/test/"));
const declares = (o: Operation) => o.params.some((p) => p.in === "query" && p.name === "dry_run");

const COMPANY = "76192083-9";
const juanaCert = { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem };
const invoice = { tipo: 33, folio: 7, receptor: "22222222-2", total: 100 };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

/** The document's sample with the sandbox's credentials and signed XML, so a preview gets past validation. */
async function validBaseline(operation: Operation): Promise<Baseline> {
  const base = structuredClone(baselineOf(doc, operation));
  const body = base.body;
  if (!isObject(body)) return base;
  if (isObject(body.auth)) {
    if ("pass" in body.auth) body.auth = { pass: { rut: COMPANY, clave: "sandbox76" } };
    else if ("cert" in body.auth) body.auth = { cert: juanaCert };
  }
  // The samples' document types are the schema's first pick; these writes take narrower sets.
  for (const d of Array.isArray(body.documentos) ? body.documentos : []) if (isObject(d) && "tipo_documento" in d) d.tipo_documento = 33;
  for (const r of Array.isArray(body.resumenes) ? body.resumenes : []) if (isObject(r) && "tipo_documento" in r) r.tipo_documento = 39;
  const juana = () => parseCertificateCredential(juanaCert, new Date());
  if (operation.path.endsWith("/envios/enviar"))
    body.xml = bytesToBase64(await signedEnvelope(await juana(), COMPANY, [{ ...invoice, folio: 11 }]));
  else if ("xml" in body) body.xml = bytesToBase64(new TextEncoder().encode(await signedDte(await juana(), COMPANY, invoice)));
  return base;
}

/** One call with `?dry_run=1`: its answer, and how many calls reached the sandbox SII meanwhile. */
async function dryRun(operation: Operation, spent: boolean) {
  const t = probeApp();
  const plan = { daily_units: 10, monthly_units: 1000 };
  const { secret, id } = await tokenFor(t.deps, { plan });
  if (spent) await t.deps.quota.consume(id, 10, plan, t.deps.clock.now());
  const sandbox = simulatorOf(t.deps.sii);
  const total = () => [...sandbox.state.calls.values()].reduce((a, b) => a + b, 0);
  const request = plainRequest(operation, await validBaseline(operation), [["x-api-token", secret]]);
  request.query.dry_run = "1";
  const before = total();
  const res = await t.app.request(toRequest("http://gateway.test", request));
  // Only refusals are read: a preview's own answer is another test's matter.
  const body = res.status >= 400 && (res.headers.get("content-type") ?? "").includes("json") ? await errorOf(res) : undefined;
  const used = (await t.deps.quota.peek(id, plan, t.deps.clock.now())).daily.used;
  return { res, body, siiCalls: total() - before, used, name: `${operation.method} ${operation.path}` };
}

describe(`dry_run on each of the ${operations.length} operations of /openapi.json`, () => {
  it("covers the document: most operations have no preview, the irreversible writes have one", () => {
    expect(operations.length).toBeGreaterThan(40);
    const withPreview = operations.filter(declares).map((o) => o.operationId);
    expect(withPreview).toContain("post_sii_dte_caf_solicitar");
    expect(withPreview).toContain("post_platform_dte_envios_enviar");
    expect(withPreview).not.toContain("post_sii_rcv_ventas_resumen");
    expect(withPreview).not.toContain("post_sii_bhe_emitidas_email");
  });

  it("with a spent quota: a 400 naming dry_run where there is no preview, otherwise a preview that never reaches the SII", async () => {
    const problems: string[] = [];
    let previews = 0;
    for (const operation of operations) {
      const { res, body, siiCalls, used, name } = await dryRun(operation, true);
      if (siiCalls > 0) problems.push(`${name}: ${siiCalls} SII calls for ${res.status}`);
      if (used !== 10) problems.push(`${name}: quota moved to ${used}`);
      if (!declares(operation)) {
        const named = (body?.errors ?? []).some((e) => e.path === "dry_run" && e.location === "query");
        if (res.status !== 400 || body?.error_code !== "VALIDATION_ERROR" || !named)
          problems.push(`${name}: ${res.status} ${body?.error_code} instead of a 400 naming dry_run`);
      } else if (res.status === 200) previews++;
      else if (!(res.status === 429 && body?.error_code === "QUOTA_EXCEEDED"))
        problems.push(`${name}: preview answered ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
      if (res.status === 200 && res.headers.get("x-quota-units") !== "0")
        problems.push(`${name}: X-Quota-Units ${res.headers.get("x-quota-units")}`);
    }
    expect(problems).toEqual([]);
    // Every preview passed: the spent quota does not stand in the way of a call that costs nothing.
    expect(previews).toBe(operations.filter(declares).length);
  }, 60_000);

  it("with quota left: a preview is free and makes no SII call", async () => {
    for (const operation of operations.filter(declares)) {
      const { res, siiCalls, used, name } = await dryRun(operation, false);
      expect({ name, status: res.status, siiCalls, used }).toEqual({ name, status: 200, siiCalls: 0, used: 0 });
    }
  }, 60_000);

  it("false-like values are refused too where there is no preview: the parameter itself is unknown there", async () => {
    const t = probeApp();
    const { secret } = await tokenFor(t.deps);
    const auth = { auth: { pass: { rut: COMPANY, clave: "sandbox76" } } };
    const res = await postJson(t.app, secret, `/api/v1/sii/rcv/ventas/resumen/${COMPANY}/202401?dry_run=false`, auth);
    expect(res.status).toBe(400);
    expect((await errorOf(res)).errors).toContainEqual(expect.objectContaining({ path: "dry_run", location: "query" }));
  });

  it("an operation that ignored dry_run still cannot reach the SII: its transport refuses, and nothing is charged", async () => {
    const t = probeApp();
    const path = "/api/v1/test/careless/{contribuyente}";
    registerOperation(
      t.app,
      createRoute({
        method: "post",
        path,
        request: { params: z.object({ contribuyente: z.string() }), query: z.object({ dry_run: DryRun }) },
        responses: { 200: { description: "ok" } },
      }),
      { scope: "sii:write", weight: 5, write: true },
      async (c) => {
        const res = await c.get("deps").sii.fetch(new Request("https://maullin.sii.cl/DTEWS/CrSeed.jws", { method: "POST" }));
        return c.json({ status: res.status });
      },
    );
    const { secret } = await tokenFor(t.deps);
    const res = await t.app.request(`/api/v1/test/careless/${COMPANY}?dry_run=1`, { method: "POST", headers: { "x-api-token": secret } });
    expect(res.status).toBe(500);
    expect(res.headers.get("x-quota-units")).toBe("0");
    expect(simulatorOf(t.deps.sii).state.calls.size ?? 0).toBe(0);
    const real = await t.app.request(`/api/v1/test/careless/${COMPANY}`, { method: "POST", headers: { "x-api-token": secret } });
    expect(real.status).toBe(200);
    expect(simulatorOf(t.deps.sii).state.calls.size).toBe(1);
  });
});

describe("charging follows what happened", () => {
  it("a clave the SII refuses is charged: it cost an SII login (free attempts would let anyone guess claves)", async () => {
    const t = probeApp();
    const { secret } = await tokenFor(t.deps);
    const sandbox = simulatorOf(t.deps.sii);
    const total = () => [...sandbox.state.calls.values()].reduce((a, b) => a + b, 0);
    const before = total();
    const res = await postJson(t.app, secret, `/api/v1/sii/rcv/ventas/resumen/${COMPANY}/202401`, {
      auth: { pass: { rut: COMPANY, clave: "not-the-clave" } },
    });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).error_code).toBe("AUTH_ERROR");
    expect(total()).toBeGreaterThan(before);
    expect(res.headers.get("x-quota-units")).toBe("2");
  });

  it("a certificate the gateway cannot use is refused before any SII call, and is free", async () => {
    const t = probeApp();
    const { secret } = await tokenFor(t.deps);
    const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
    const bodies = [
      { auth: { cert: { "cert-data": "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----", "pkey-data": "x" } } },
      { auth: { cert: { "cert-data": juana.certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["22222222-2"].keyPem } } },
    ];
    for (const body of bodies) {
      const res = await postJson(t.app, secret, `/api/v1/sii/dte/caf/solicitar/${COMPANY}/33/5`, body);
      expect(res.status).toBe(400);
      expect((await errorOf(res)).error_code).toBe("AUTH_ERROR");
      expect(res.headers.get("x-quota-units")).toBe("0");
    }
    expect(simulatorOf(t.deps.sii).state.calls.size ?? 0).toBe(0);
    const usage = await answerOf(await t.app.request("/api/v1/usage", { headers: { "x-api-token": secret } }), UsageEnvelope);
    expect(usage.data.usage.daily.used).toBe(0);
  });
});
