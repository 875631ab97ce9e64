// BHE e-mail resend through the gateway against the sandbox SII.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Scope } from "../../src/ports/access.ts";
import { Resent } from "../../src/routes/bhe/emitidas-email.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { jsValue } from "../../src/sii/bhe.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { probeApp, tokenFor } from "../support/app.ts";

const path = (codigo: string) => `/api/v1/sii/bhe/emitidas/email/${codigo}`;
const pedro = { rut: "22222222-2", clave: "sandbox22" };

async function setup(scopes?: Scope[], account = "acme") {
  const t = probeApp();
  const token = await tokenFor(t.deps, { scopes, account });
  const post = (codigo: string, body: unknown, secret = token.secret) =>
    t.app.request(path(codigo), {
      method: "POST",
      headers: { "x-api-token": secret, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const sandbox = simulatorOf(t.deps.sii);
  return { ...t, post, sandbox };
}

describe("BHE e-mail resend", () => {
  it("has the SII send the slip, with the latin1 address, and reports the SII's text and form data", async () => {
    const { post, sandbox } = await setup();
    const res = await post("222222220000041F99ED", { auth: { pass: pedro }, destinatario: { email: "josé@ejemplo.cl", nombre: "José" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-quota-units")).toBe("2");
    const { data } = await answerOf(res, Resent);
    expect(data).toMatchObject({ destinatario: "josé@ejemplo.cl", nombre_receptor: "COMERCIAL SANDBOX SPA", nro_boleta: "41" });
    expect(data.mensaje).toContain("enviada exitosamente");
    expect(sandbox.state.bheEmails).toEqual([{ codigo: "222222220000041F99ED", email: "josé@ejemplo.cl" }]);
  });

  it("counts every resend again and reuses the clave session", async () => {
    const { post, sandbox } = await setup();
    // Pinned tidy: this test counts clave logins exactly; a rough early session expiry adds one.
    sandbox.state.rough = null;
    const body = { auth: { pass: pedro }, destinatario: { email: "a@b.cl" } };
    const first = await post("222222220000041F99ED", body);
    const second = await post("222222220000041F99ED", body);
    expect([first.headers.get("x-quota-units"), second.headers.get("x-quota-units")]).toEqual(["2", "2"]);
    expect(sandbox.state.bheEmails).toHaveLength(2);
    expect(sandbox.state.calls.get("clave_login")).toBe(1);
  });

  it("answers 404 HTTP_404 for a code the taxpayer did not issue", async () => {
    const { post } = await setup();
    for (const codigo of ["999999990000001AAAAA", "111111110000007B2D41"]) {
      const res = await post(codigo, { auth: { pass: pedro }, destinatario: { email: "a@b.cl" } });
      expect([res.status, (await errorOf(res)).error_code], codigo).toEqual([404, "HTTP_404"]);
    }
  });

  it("answers 400 for a malformed e-mail (before the SII) and a wrong clave, 422 for a missing field", async () => {
    const { post, sandbox } = await setup();
    const bad = await post("222222220000041F99ED", { auth: { pass: pedro }, destinatario: { email: "not-an-email" } });
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).errors?.[0]?.path).toBe("destinatario.email");
    expect(sandbox.state.calls.size).toBe(0);
    const wrong = await post("222222220000041F99ED", { auth: { pass: { ...pedro, clave: "nope" } }, destinatario: { email: "a@b.cl" } });
    expect([wrong.status, (await errorOf(wrong)).error_code]).toEqual([400, "AUTH_ERROR"]);
    const missing = await post("222222220000041F99ED", { auth: { pass: { rut: "22222222-2" } }, destinatario: {} });
    expect(missing.status).toBe(422);
    expect((await errorOf(missing)).errors?.map((e) => e.path).sort()).toEqual(["auth.pass.clave", "destinatario.email"]);
  });

  it("maps SII throttling to 429 and failures to 502", async () => {
    const { post, sandbox } = await setup();
    const body = { auth: { pass: pedro }, destinatario: { email: "a@b.cl" } };
    sandbox.state.faults.push({ service: "loa.sii.cl", fault: "throttle", remaining: 1 });
    expect((await post("222222220000041F99ED", body)).status).toBe(429);
    sandbox.state.faults.push({ service: "bhe_email_send", fault: "http_5xx", remaining: 1 });
    expect((await post("222222220000041F99ED", body)).status).toBe(502);
  });

  it("needs sii:write, and another account never rides on this account's session", async () => {
    const { post, deps, sandbox } = await setup();
    // Pinned tidy: this test counts clave logins per account exactly; a rough early session expiry adds one.
    sandbox.state.rough = null;
    const reader = await tokenFor(deps, { scopes: ["sii:read"] });
    const body = { auth: { pass: pedro }, destinatario: { email: "a@b.cl" } };
    expect((await post("222222220000041F99ED", body, reader.secret)).status).toBe(403);
    await post("222222220000041F99ED", body);
    const other = await tokenFor(deps, { account: "globex" });
    await post("222222220000041F99ED", body, other.secret);
    expect(sandbox.state.calls.get("clave_login")).toBe(2);
  });
});

describe("BHE e-mail form page", () => {
  const page = readFileSync(join(import.meta.dirname, "..", "fixtures", "sii", "bhe", "presenta-datos-envio.htm"), "utf8");

  it("reads the values the page's script assigns, entities decoded", () => {
    expect(jsValue(page, "nombre_receptor")).toBe("COMERCIAL PEÑALOLEN SPA");
    expect(jsValue(page, "nro_boleta")).toBe("41");
    expect(jsValue(page, "no_such_value")).toBeNull();
  });

  it("reads them from scripts only, never from the page's visible text", () => {
    const quoted = `<p>xml_values['nro_boleta'] = "99"</p>${page}`;
    expect(jsValue(quoted, "nro_boleta")).toBe("41");
    expect(jsValue("<p>xml_values['nro_boleta'] = \"99\"</p>", "nro_boleta")).toBeNull();
  });
});
