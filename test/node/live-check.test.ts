import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { createTransport } from "../../src/sii/transport.ts";
import { bodyOf, postJson, testDeps, tokenFor } from "../support/app.ts";

const CLAVE = "Canary-Clave-7Xq";
const THIRD_PARTY = "12345678-K";

/** A live-mode app whose "SII" answers every request with a page no client can read. */
function liveAppAnswering(page: string) {
  const requests: string[] = [];
  const stub: typeof fetch = async (input) => {
    requests.push(new Request(input).url);
    return new Response(page, { status: 200, headers: { "content-type": "text/html; charset=ISO-8859-1" } });
  };
  const { deps } = testDeps(undefined, { upstream: "live" });
  deps.sii = createTransport("live", stub);
  return { app: createApp(() => deps), deps, requests };
}

describe("live mode: a 502 about an unreadable SII answer carries a redacted excerpt", () => {
  it("quotes the answer with the caller's clave, session cookies and third parties hidden", async () => {
    const garbage = [
      "<html><body><p>Error inesperado en el sistema</p>",
      `<form><input type="hidden" name="clave" value="${CLAVE}"><input name="x" value="${encodeURIComponent(CLAVE)}"></form>`,
      `<p>Se ingreso ${CLAVE} para ${THIRD_PARTY}, RUT 76192083-9, clave en base64 ${btoa(CLAVE)}</p>`,
      "</body></html>",
    ].join("");
    const { app, deps } = liveAppAnswering(garbage);
    const { secret } = await tokenFor(deps);
    const res = await postJson(app, secret, "/api/v1/sii/bte/emitidas/resumen/2025", {
      auth: { pass: { rut: "76192083-9", clave: CLAVE } },
    });
    expect(res.status).toBe(502);
    const body = await bodyOf(res);
    expect(body.error_code).toBe("SII_GATEWAY_ERROR");
    const excerpt: string = body.details.sii_excerpt;
    expect(excerpt).toContain("Error inesperado en el sistema");
    expect(excerpt.length).toBeLessThanOrEqual(500);
    expect(excerpt).toContain("12345678-?");
    expect(excerpt).toContain("76192083-9");
    // No form of the clave survives anywhere in the answer.
    const text = JSON.stringify(body);
    for (const form of [CLAVE, encodeURIComponent(CLAVE), btoa(CLAVE), "Canary"]) expect(text).not.toContain(form);
  }, 20_000);

  it("adds nothing in sandbox mode", async () => {
    const { deps } = testDeps();
    const app = createApp(() => deps);
    const { secret } = await tokenFor(deps);
    await app.request("/sandbox/v1/faults", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ service: "bte_report", fault: "html" }),
    });
    const res = await postJson(app, secret, "/api/v1/sii/bte/emitidas/resumen/2025", {
      auth: { pass: { rut: "76192083-9", clave: "sandbox76" } },
    });
    expect(res.status).toBe(502);
    const body = await bodyOf(res);
    expect(body.details.sii_excerpt).toBeUndefined();
  });
});
