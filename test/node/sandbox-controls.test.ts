// The sandbox's own endpoints: credentials, faults and call counts, sandbox mode only.
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { Credentials } from "../../src/routes/sandbox/credentials.ts";
import { Calls, Faults } from "../../src/routes/sandbox/schema.ts";
import { SANDBOX_CAF_SIGNER } from "../../src/sandbox/credentials/index.ts";
import { claveLogin } from "../../src/sii/login.ts";
import { liveTransport } from "../../src/sii/transport.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, testDeps, tokenFor } from "../support/app.ts";

function sandboxApp() {
  const { deps } = testDeps();
  return { app: createApp(() => deps), deps };
}

const json = { "content-type": "application/json" };

describe("sandbox endpoints", () => {
  it("lists test taxpayers with claves and certificates, without an API token", async () => {
    const { app } = sandboxApp();
    const res = await app.request("/sandbox/v1/credentials");
    expect(res.status).toBe(200);
    const { data } = await answerOf(res, Credentials);
    const company = data.taxpayers.find((t) => t.kind === "company");
    const person = data.taxpayers.find((t) => t.kind === "person");
    expect(company).toMatchObject({ rut: "76192083-9", clave: "sandbox76" });
    expect(person?.cert["cert-data"]).toContain("BEGIN CERTIFICATE");
    expect(person?.cert["pkey-data"]).toContain("PRIVATE KEY");
    expect(person?.pfx.passphrase).toBe("sandbox");
    expect(data.taxpayers.find((t) => t.rut === "22222222-2")?.samples.bhe_codes).toContain("222222220000041F99ED");
    expect(data.ca_certificate).toContain("BEGIN CERTIFICATE");
    expect(data.caf_signing_key.idk).toBe(900);
    expect(data.caf_signing_key.public_key).toContain("BEGIN PUBLIC KEY");
    expect(JSON.stringify(data)).not.toContain(SANDBOX_CAF_SIGNER.keyPem.slice(40, 80));
  });

  it("gives each certificate form ready to paste as auth.cert: PEM, PFX and legacy PFX all sign in", async () => {
    const { app, deps } = sandboxApp();
    const { data } = await answerOf(await app.request("/sandbox/v1/credentials"), Credentials);
    const juana = data.taxpayers.find((t) => t.rut === "11111111-1")!;
    const token = await tokenFor(deps, { scopes: ["sii:write"] });
    for (const cert of [juana.cert, juana.pfx, juana.pfx_legacy]) {
      const body = {
        auth: { cert },
        dte: {
          Encabezado: { IdDoc: { TipoDTE: 33, Folio: 1 }, Emisor: { RUTEmisor: "76192083-9" }, Receptor: { RUTRecep: "22222222-2" } },
        },
        caf: "<AUTORIZACION>not a CAF</AUTORIZACION>",
        resolucion: { fecha: "2014-08-22", numero: 80 },
      };
      const res = await postJson(app, token.secret, "/api/v1/platform/dte/documentos/generar", body);
      // The certificate is read first and accepted; the deliberately useless CAF is what the answer is about.
      expect((await errorOf(res)).errors?.[0]?.path).toBe("caf");
    }
  });

  it("switches faults on for the next calls, counts calls, and resets both", async () => {
    const { app, deps } = sandboxApp();
    const ctx = { transport: deps.sii, timeoutMs: 2000 };
    const added = await app.request("/sandbox/v1/faults", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ service: "clave_login", fault: "maintenance", count: 1 }),
    });
    expect(added.status).toBe(200);
    expect((await answerOf(added, Faults)).data.faults).toEqual([{ service: "clave_login", fault: "maintenance", remaining: 1 }]);

    await expect(claveLogin(ctx, { rut: "76192083-9", clave: "sandbox76" })).rejects.toMatchObject({ code: "SII_UNAVAILABLE" });
    await claveLogin(ctx, { rut: "76192083-9", clave: "sandbox76" });
    const calls = await answerOf(await app.request("/sandbox/v1/calls"), Calls);
    expect(calls.data).toEqual({ calls: { clave_login: 2, login_page: 2 }, total: 4 });

    await app.request("/sandbox/v1/faults", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ service: "seed", fault: "timeout", count: 3 }),
    });
    expect((await answerOf(await app.request("/sandbox/v1/faults", { method: "DELETE" }), Faults)).data.faults).toEqual([]);
    expect((await answerOf(await app.request("/sandbox/v1/calls", { method: "DELETE" }), Calls)).data.total).toBe(0);
  });

  it("validates fault requests", async () => {
    const { app } = sandboxApp();
    const res = await app.request("/sandbox/v1/faults", {
      method: "POST",
      headers: json,
      body: JSON.stringify({ service: "", fault: "flood", count: 0 }),
    });
    expect(res.status).toBe(422);
    expect((await errorOf(res)).errors?.map((e: { path: string }) => e.path).sort()).toEqual(["count", "fault", "service"]);
  });

  it("does not exist in live mode", async () => {
    const { deps } = testDeps(undefined, { upstream: "live" });
    deps.sii = liveTransport(async () => new Response("unreachable", { status: 599 }));
    const app = createApp(() => deps);
    for (const [method, path] of [
      ["GET", "/sandbox/v1/credentials"],
      ["GET", "/sandbox/v1/calls"],
      ["POST", "/sandbox/v1/faults"],
    ]) {
      const res = await app.request(path!, {
        method,
        headers: json,
        body: method === "POST" ? '{"service":"seed","fault":"html"}' : undefined,
      });
      expect(res.status, path).toBe(404);
      expect((await errorOf(res)).error_code).toBe("HTTP_404");
    }
  });
});
