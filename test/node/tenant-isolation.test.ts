// Two accounts working on the same taxpayer RUT must never see or use each other's state: SII
// sessions and tokens, idempotency records, proxy settings, usage and quota. A wrong credential
// never rides on a session the other account opened with the right one.
import { describe, expect, it } from "vitest";
import { Result } from "../../src/routes/intercambios/respuesta-sii.ts";
import { ProxySettingsEnvelope } from "../../src/routes/settings/schema.ts";
import { UsageEnvelope } from "../../src/routes/usage/get.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const COMPANY = "76192083-9";
const right = { auth: { pass: { rut: COMPANY, clave: "sandbox76" } } };
const wrong = { auth: { pass: { rut: COMPANY, clave: "not-the-clave" } } };
const juana = {
  auth: { cert: { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem } },
};
const pedro = { auth: { cert: { "pfx-data": SANDBOX_TAXPAYER_CERTS["22222222-2"].legacyPfxBase64, passphrase: "sandbox" } } };

async function twoAccounts() {
  const t = probeApp();
  const a = await tokenFor(t.deps, { account: "alpha", plan: { daily_units: 100, monthly_units: 1000 } });
  const b = await tokenFor(t.deps, { account: "beta", plan: { daily_units: 100, monthly_units: 1000 } });
  const as = (token: { secret: string }) => ({
    post: (path: string, body: unknown, headers: Record<string, string> = {}) => postJson(t.app, token.secret, path, body, headers),
    get: (path: string) => t.app.request(path, { headers: { "x-api-token": token.secret } }),
    put: (path: string, body: unknown) =>
      t.app.request(path, {
        method: "PUT",
        headers: { "x-api-token": token.secret, "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
  });
  return { ...t, alpha: as(a), beta: as(b), sandbox: simulatorOf(t.deps.sii) };
}

describe("tenant isolation", () => {
  it("a wrong clave never rides on the session another account opened for the same RUT", async () => {
    const { alpha, beta, sandbox } = await twoAccounts();
    // Pinned tidy: this test counts clave logins exactly; a rough early session expiry adds one.
    sandbox.state.rough = null;
    const bte = "/api/v1/sii/bte/emitidas/resumen/2025";
    expect((await alpha.post(bte, right)).status).toBe(200);
    const logins = sandbox.state.calls.get("clave_login");
    const res = await beta.post(bte, wrong);
    expect([res.status, (await errorOf(res)).error_code]).toEqual([400, "AUTH_ERROR"]);
    expect(sandbox.state.calls.get("clave_login")).toBe((logins ?? 0) + 1);
    // With the right clave, beta still opens its own session.
    expect((await beta.post(bte, right)).status).toBe(200);
    expect(sandbox.state.calls.get("clave_login")).toBe((logins ?? 0) + 2);
  });

  it("a certificate without power over the taxpayer gets 403 even while another account has a session for it", async () => {
    const { alpha, beta } = await twoAccounts();
    const datos = `/api/v1/sii/dte/contribuyentes/datos/${COMPANY}`;
    expect((await alpha.post(datos, juana)).status).toBe(200);
    const res = await beta.post(datos, pedro);
    expect([res.status, (await errorOf(res)).error_code]).toEqual([403, "AUTH_ERROR"]);
  });

  it("keeps idempotency records per account: the same key is two different requests", async () => {
    const { alpha, beta, sandbox } = await twoAccounts();
    const path = "/api/v1/platform/dte/intercambios/respuesta_sii";
    const body = (folio: number) => ({ ...juana, documentos: { emisor: "77123456-9", dte: 33, folio, accion: "ACD" } });
    const first = await alpha.post(path, body(1001), { "idempotency-key": "same-key" });
    const other = await beta.post(path, body(1003), { "idempotency-key": "same-key" });
    expect(first.status).toBe(200);
    expect(other.status).toBe(200);
    expect(other.headers.get("idempotent-replayed")).toBeNull();
    expect((await answerOf(other, Result)).data.documentos[0]?.folio).toBe(1003);
    expect(sandbox.state.calls.get("reclamos")).toBe(2);
  });

  it("keeps proxy settings, usage and quota per account", async () => {
    const { alpha, beta } = await twoAccounts();
    const put = await alpha.put("/api/v1/settings/proxy", {
      enabled: true,
      url: "http://proxy.example.cl:3128",
      username: "erp",
      password: "secret-pw",
    });
    expect(put.status).toBe(200);
    expect((await answerOf(await beta.get("/api/v1/settings/proxy"), ProxySettingsEnvelope)).data).toMatchObject({
      enabled: false,
      url: null,
    });
    await alpha.get("/api/v1/sii/indicadores/uf/anual/2024/03/15");
    await alpha.get("/api/v1/sii/indicadores/uf/anual/2024/03/16");
    const used = async (who: typeof alpha) => (await answerOf(await who.get("/api/v1/usage"), UsageEnvelope)).data.usage.daily.used;
    // alpha: the settings write and two reads (the first reads the SII's page: 2 units); beta: one settings read.
    expect(await used(alpha)).toBe(4);
    expect(await used(beta)).toBe(1);
  });

  it("one account running out of quota leaves the other's untouched", async () => {
    const t = probeApp();
    // The year's first read pays 2 units (it reads the SII's page), the next 1.
    const plan = { daily_units: 3, monthly_units: 100 };
    const alpha = await tokenFor(t.deps, { account: "alpha", plan });
    const beta = await tokenFor(t.deps, { account: "beta", plan });
    const read = (token: { secret: string }, day: number) =>
      t.app.request(`/api/v1/sii/indicadores/uf/anual/2024/03/${10 + day}`, { headers: { "x-api-token": token.secret } });
    expect([(await read(alpha, 1)).status, (await read(alpha, 2)).status]).toEqual([200, 200]);
    const refused = await read(alpha, 3);
    expect([refused.status, (await errorOf(refused)).error_code]).toEqual([429, "QUOTA_EXCEEDED"]);
    expect([(await read(beta, 1)).status, (await read(beta, 2)).status]).toEqual([200, 200]);
  });
});
