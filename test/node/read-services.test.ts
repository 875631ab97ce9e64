// The BHE, BTE, taxpayer, indicator, settings and health services serve a caller that is no HTTP
// request: a Caller built from the test app's deps (and a credential read from the sandbox's
// certificate where one is needed), plain data back and the project's errors thrown.
import { describe, expect, it } from "vitest";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import { ApiError } from "../../src/platform/errors.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { sandboxUf } from "../../src/sandbox/indicadores.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { resendIssuedBhe } from "../../src/services/bhe.ts";
import { issuedBteSummary } from "../../src/services/bte.ts";
import { taxpayerDataOf, taxpayerPageOf } from "../../src/services/contribuyentes.ts";
import { gatewayHealth, HEALTH_PROBES } from "../../src/services/health.ts";
import { ufOfDate } from "../../src/services/indicadores.ts";
import { proxySettings, replaceProxySettings, testProxy } from "../../src/services/settings.ts";
import { ADMIN, probeApp } from "../support/app.ts";
import { testCaller } from "../support/caller.ts";

function setup(config: Parameters<typeof probeApp>[1] = {}) {
  const { deps } = probeApp(undefined, config);
  return { deps, caller: testCaller(deps, "acme"), sandbox: simulatorOf(deps.sii) };
}

/** The ApiError `promise` is rejected with. */
async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(err)}`);
  return err;
}

describe("the read services, called without HTTP", () => {
  it("BHE: has the SII mail an issued slip again and answers its confirmation", async () => {
    const { caller, sandbox } = setup();
    const sent = await resendIssuedBhe(caller, { rut: "22222222-2", clave: "sandbox22" }, "222222220000041F99ED", "a@b.cl");
    expect(sent).toMatchObject({ destinatario: "a@b.cl", nro_boleta: "41" });
    expect(sandbox.state.bheEmails).toEqual([{ codigo: "222222220000041F99ED", email: "a@b.cl" }]);
  });

  it("BTE: answers the year's summary as data for the clave's taxpayer, with the SII's page and cells", async () => {
    const { caller } = setup();
    const summary = await issuedBteSummary(caller, { rut: "76192083-9", clave: "sandbox76" }, 2025);
    expect(summary.data).toMatchObject({ anio: 2025, emisor: "76192083-9" });
    expect(summary.data.mensual.map((m) => m.mes)).toEqual([1, 2, 3, 5, 8, 11, 12]);
    expect(summary.message).toBe("BTEs issued in 2025");
    expect(summary.page).toContain("<");
    expect(summary.cells.length).toBeGreaterThan(1);
  });

  it("taxpayers: reads a represented company's file and its page, and refuses one the certificate does not represent", async () => {
    const { deps, caller } = setup();
    const { certPem, keyPem } = SANDBOX_TAXPAYER_CERTS["11111111-1"];
    const credential = await parseCertificateCredential({ "cert-data": certPem, "pkey-data": keyPem }, deps.clock.now());
    const company = { credential, ambiente: "0" as const, contribuyente: "76192083-9" };
    expect(await taxpayerDataOf(caller, company)).toMatchObject({ rut: "76192083-9", razon_social: "COMERCIAL SANDBOX SPA" });
    expect(await taxpayerPageOf(caller, company)).toContain("<");
    const other = await refusal(taxpayerDataOf(caller, { ...company, contribuyente: "22222222-2" }));
    expect([other.status, other.code]).toEqual([403, "AUTH_ERROR"]);
  });

  it("indicators: answers a date's UF, read once for the year, and names the day a month does not have", async () => {
    const { caller, sandbox } = setup();
    expect(await ufOfDate(caller, 2025, 3, 15)).toEqual({ fecha: "2025-03-15", valor: sandboxUf(new Date(Date.UTC(2025, 2, 15))) });
    await ufOfDate(caller, 2025, 7, 1);
    expect(sandbox.state.calls.get("indicadores")).toBe(1);
    const bad = await refusal(ufOfDate(caller, 2025, 2, 30));
    expect([bad.status, bad.init.errors?.[0]?.path]).toEqual([400, "dia"]);
  });

  it("settings: stores the account's proxy, shows it without the password, and tests only an enabled one", async () => {
    // The operator's policy as in production: no loopback, private or link-local proxy.
    const { caller, deps } = setup({ allowPrivateProxy: false });
    const noProxy = await refusal(testProxy(caller, "0"));
    expect([noProxy.status, noProxy.code]).toEqual([400, "VALIDATION_ERROR"]);
    const input = { enabled: true, url: "http://proxy.example.cl:3128/", username: "erp", password: "s3cret" };
    const stored = await replaceProxySettings(caller, input);
    expect(stored).toMatchObject({ enabled: true, url: "http://proxy.example.cl:3128", username: "erp", password_set: true });
    expect(await proxySettings(caller)).toEqual(stored);
    expect(JSON.stringify(stored)).not.toContain("s3cret");
    expect((await proxySettings(testCaller(deps, "another"))).enabled).toBe(false);
    const loopback = await refusal(replaceProxySettings(caller, { enabled: true, url: "http://127.0.0.1:3128" }));
    expect(loopback.init.errors?.[0]?.path).toBe("url");
  });

  it("health: answers the gateway's state, and the hosts' only to the admin token", async () => {
    const { caller } = setup();
    expect(await gatewayHealth(caller, false, undefined)).toMatchObject({ status: "ok", mode: "sandbox" });
    expect((await refusal(gatewayHealth(caller, true, "not-the-admin-token"))).status).toBe(401);
    const deep = await gatewayHealth(caller, true, ADMIN);
    if (!("sii" in deep)) throw new Error("the deep check answers each host's state");
    expect(deep.sii.map((h) => h.host)).toEqual(HEALTH_PROBES.map((p) => p.host));
  });
});
