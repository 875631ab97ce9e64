// The key-derivation fee through the API: every operation that takes `auth.cert` reads it through
// one place (src/routes/credentials.ts `parseCertificate`), which charges a credential that
// derives more than FREE_KDF_ITERATIONS one unit per started KDF_ITERATIONS_PER_UNIT more, into
// the call's own charge, the first time the isolate parses it.
import { beforeEach, describe, expect, it } from "vitest";
import { clearCredentialCache } from "../../src/certificates/credentials.ts";
import { UsageEnvelope } from "../../src/routes/usage/get.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { LEGACY_PFX_AT_LIMIT, LEGACY_PFX_OVER_LIMIT } from "../fixtures/certificates/legacy-pfx.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";
import { pbes2KeyPem } from "../support/pbes2-key.ts";

const ESTADO = "/api/v1/platform/dte/envios/estado/76192083-9/0260000001";
const DATOS = "/api/v1/sii/dte/contribuyentes/datos/76192083-9";
const ANULAR = "/api/v1/sii/dte/caf/anular/76192083-9/33/91/100";
const pfx = (data: string) => ({ auth: { cert: { "pfx-data": data, passphrase: "sandbox" } } });
const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
const sandboxPfx = pfx(juana.legacyPfxBase64);
/** Juana's certificate with her key encrypted as PBES2 at `iterations` (one PBKDF2 derivation). */
const pemAt = async (iterations: number) => ({
  auth: {
    cert: { "cert-data": juana.certPem, "pkey-data": await pbes2KeyPem(juana.keyPem, "sandbox", iterations), passphrase: "sandbox" },
  },
});

async function setup(plan = { daily_units: 100, monthly_units: 1000 }) {
  const t = probeApp();
  const token = await tokenFor(t.deps, { plan });
  const post = (path: string, body: unknown) => postJson(t.app, token.secret, path, body);
  const used = async () =>
    (await answerOf(await t.app.request("/api/v1/usage", { headers: { "x-api-token": token.secret } }), UsageEnvelope)).data.usage.daily
      .used;
  const { sandbox } = t.deps.sii;
  if (!sandbox) throw new Error("the test app talks to the sandbox");
  const siiCalls = () => [...sandbox.calls().values()].reduce((a, b) => a + b, 0);
  return { post, used, siiCalls, sandbox };
}

const units = (res: Response) => [res.status, res.headers.get("x-quota-units")];

beforeEach(() => clearCredentialCache());

describe("the key-derivation fee of auth.cert", () => {
  it("charges a legacy PFX at the ceiling nine units more on its first use, and nothing more once parsed", async () => {
    const { post, used } = await setup();
    expect(units(await post(ESTADO, pfx(LEGACY_PFX_AT_LIMIT)))).toEqual([200, "10"]);
    expect(units(await post(ESTADO, pfx(LEGACY_PFX_AT_LIMIT)))).toEqual([200, "1"]);
    expect(await used()).toBe(11);
  });

  it("adds the units to the operation's own weight (taxpayer data: 2)", async () => {
    const { post } = await setup();
    expect(units(await post(DATOS, pfx(LEGACY_PFX_AT_LIMIT)))).toEqual([200, "11"]);
  });

  it("charges an encrypted PEM key by the same rule: 100 000 iterations nine units more, 10 240 nothing", async () => {
    const { post } = await setup();
    expect(units(await post(ESTADO, await pemAt(100_000)))).toEqual([200, "10"]);
    expect(units(await post(ESTADO, await pemAt(10_240)))).toEqual([200, "1"]);
  });

  it("charges nothing more for what real tools write (the sandbox's PFX at 2048 iterations)", async () => {
    const { post } = await setup();
    expect(units(await post(ESTADO, sandboxPfx))).toEqual([200, "1"]);
  });

  it("answers 429 QUOTA_EXCEEDED naming the derivations, before the SII, when the plan cannot pay; the PFX is read once it can", async () => {
    const { post, used, siiCalls, sandbox } = await setup({ daily_units: 1, monthly_units: 1000 });
    sandbox.resetCalls();
    const res = await post(ESTADO, pfx(LEGACY_PFX_AT_LIMIT));
    const body = await errorOf(res);
    expect([res.status, body.error_code, body.details?.units_needed]).toEqual([429, "QUOTA_EXCEEDED", 1]);
    expect(body.message).toMatch(/deriving the keys of auth\.cert \(over 10240 iterations\) needs 1 units/);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect([siiCalls(), await used()]).toEqual([0, 0]);
    // Not kept as parsed: the fee was not paid. The sandbox's PFX fits the same plan.
    expect(units(await post(ESTADO, sandboxPfx))).toEqual([200, "1"]);
  });

  it("is not paid by a dry_run, which consumes no quota; the call after it finds the PFX read and pays its weight alone", async () => {
    const { post, siiCalls, sandbox, used } = await setup();
    sandbox.resetCalls();
    expect(units(await post(`${ANULAR}?dry_run=1`, pfx(LEGACY_PFX_AT_LIMIT)))).toEqual([200, "0"]);
    expect([siiCalls(), await used()]).toEqual([0, 0]);
    expect(units(await post(ANULAR, pfx(LEGACY_PFX_AT_LIMIT)))).toEqual([200, "5"]);
  });

  it("still refuses a PFX over the ceiling with 400 AUTH_ERROR, charging nothing", async () => {
    const { post, used } = await setup();
    const res = await post(ESTADO, pfx(LEGACY_PFX_OVER_LIMIT));
    const body = await errorOf(res);
    expect([res.status, body.error_code, res.headers.get("x-quota-units")]).toEqual([400, "AUTH_ERROR", "0"]);
    expect(body.message).toMatch(/at most 100000 iterations/);
    expect(await used()).toBe(0);
  });
});
