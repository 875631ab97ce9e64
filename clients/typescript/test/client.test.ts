// The TypeScript client against the gateway with its sandbox (in process): typed calls, the
// Idempotency-Key, GatewayError, retries of reads only, file answers as bytes and base64.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXAMPLE_ENVELOPE } from "../../../src/routes/example-documents.ts";
import { ADMIN } from "../../../test/support/app.ts";
import { createGatewayClient, GatewayError, isRead } from "../src/index.ts";
import { gateway } from "./gateway.ts";

describe("the TypeScript client", () => {
  it("reads typed answers (Health, Account, Indicators, Sandbox, Admin)", async () => {
    const { client, fetch } = await gateway();
    const health = await client.GET("/healthz");
    expect(health.response.status).toBe(200);
    expect(JSON.stringify(health.data)).toMatch(/"status"/);
    const usage = await client.GET("/api/v1/usage");
    expect(usage.data.success).toBe(true);
    const uf = await client.GET("/api/v1/sii/indicadores/uf/anual/{anio}/{mes}/{dia}", {
      params: { path: { anio: 2024, mes: 5, dia: 10 } },
    });
    expect(uf.data.success).toBe(true);
    const calls = await client.GET("/sandbox/v1/calls");
    expect(calls.data.data.calls.indicadores).toBeGreaterThan(0);
    const admin = createGatewayClient({ baseUrl: "http://127.0.0.1", headers: { authorization: `Bearer ${ADMIN}` }, fetch });
    const tokens = await admin.GET("/admin/v1/tokens");
    expect(tokens.data.success).toBe(true);
  });

  it("classifies reads from the document: GET, or a read scope without Idempotency-Key", () => {
    expect(isRead("get", "/api/v1/usage")).toBe(true);
    expect(isRead("post", "/api/v1/platform/dte/documentos/pdf")).toBe(true);
    expect(isRead("post", "/api/v1/platform/dte/documentos/generar")).toBe(false);
    expect(isRead("post", "/api/v1/platform/dte/folios/{emisor}/{dte}")).toBe(false);
    expect(isRead("post", "/sandbox/v1/faults")).toBe(false);
  });

  it("answers a file as bytes and as base64, the same as the gateway's own base64 form", async () => {
    const { client } = await gateway();
    const path = "/api/v1/platform/dte/documentos/pdf";
    const bytes = await client.file("post", path, { body: { xml: EXAMPLE_ENVELOPE, oficina_sii: "PROVIDENCIA" } });
    expect(bytes.mediaType).toBe("application/pdf");
    expect(new TextDecoder().decode(bytes.data.slice(0, 5))).toBe("%PDF-");
    const base64 = await client.file("post", path, { body: { xml: EXAMPLE_ENVELOPE, oficina_sii: "PROVIDENCIA" }, as: "base64" });
    expect(atob(base64.data).slice(0, 5)).toBe("%PDF-");
    const json = await client.POST(path, {
      body: { xml: EXAMPLE_ENVELOPE, oficina_sii: "PROVIDENCIA" },
      headers: { accept: "application/json" },
    });
    expect(json.data.data.pdf.length).toBeGreaterThan(1000);
  });

  it("sends a fresh Idempotency-Key only where the document has one, and keeps the caller's", async () => {
    const { client, sent } = await gateway();
    await client.file("post", "/api/v1/platform/dte/documentos/pdf", { body: { xml: EXAMPLE_ENVELOPE, oficina_sii: "PROVIDENCIA" } });
    expect(sent.at(-1)?.headers.get("idempotency-key")).toBeNull();
    const refused = client.POST("/api/v1/platform/dte/documentos/generar", { body: {} as never });
    await expect(refused).rejects.toBeInstanceOf(GatewayError);
    expect(sent.at(-1)?.headers.get("idempotency-key")).toMatch(/^[0-9a-f-]{36}$/);
    await client
      .POST("/api/v1/platform/dte/documentos/generar", { body: {} as never, headers: { "Idempotency-Key": "mine-1" } })
      .catch(() => {});
    expect(sent.at(-1)?.headers.get("idempotency-key")).toBe("mine-1");
  });

  it("throws GatewayError on 401, 422 (naming the field) and 429 (with retryAfter, not waited past the bound)", async () => {
    const { client, sleeps } = await gateway({ daily_units: 1, monthly_units: 10 });
    const bad = createGatewayClient({ baseUrl: "http://127.0.0.1", token: "nope", fetch: (await gateway()).fetch });
    const e401 = await bad.GET("/api/v1/usage").catch((e: unknown) => e);
    expect(e401).toMatchObject({ status: 401, error_code: "HTTP_401" });
    expect((e401 as GatewayError).request_id).toMatch(/\S/);
    const e422 = await client.POST("/api/v1/platform/dte/documentos/pdf", { body: {} as never }).catch((e: unknown) => e);
    expect(e422).toMatchObject({ status: 422, error_code: "VALIDATION_ERROR" });
    expect((e422 as GatewayError).errors.map((e) => e.path)).toContain("xml");
    const uf = { params: { path: { anio: 2024, mes: 5, dia: 10 } } };
    // One unit a day: a call or two spend it, the next is refused.
    let e429: unknown;
    for (let i = 0; i < 3 && !e429; i++)
      e429 = await client.GET("/api/v1/sii/indicadores/uf/anual/{anio}/{mes}/{dia}", uf).then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(e429).toMatchObject({ status: 429, error_code: "QUOTA_EXCEEDED" });
    expect((e429 as GatewayError).retryAfter).toBeGreaterThan(0);
    // Waited for only while the wait fits the bound (600 s here), at most twice.
    const retryAfter = (e429 as GatewayError).retryAfter ?? 0;
    expect(sleeps).toEqual(retryAfter * 2 > 600 ? (retryAfter > 600 ? [] : [retryAfter * 1000]) : [retryAfter * 1000, retryAfter * 1000]);
  });

  it("retries a read answered 503 after Retry-After, and never a write", async () => {
    const { client, sleeps } = await gateway();
    await client.POST("/sandbox/v1/faults", { body: { service: "indicadores", fault: "maintenance", count: 1 } });
    const uf = await client.GET("/api/v1/sii/indicadores/uf/anual/{anio}/{mes}/{dia}", {
      params: { path: { anio: 2023, mes: 5, dia: 10 } },
    });
    expect(uf.data.success).toBe(true);
    expect(sleeps).toEqual([300_000]);
    // The SII in maintenance for a write (sending a BHE by e-mail): one attempt, the 503 thrown with its Retry-After.
    await client.POST("/sandbox/v1/faults", { body: { service: "clave_login", fault: "maintenance", count: 5 } });
    const write = await client
      .POST("/api/v1/sii/bhe/emitidas/email/{codigo}", {
        params: { path: { codigo: "222222220000041F99ED" } },
        body: { auth: { pass: { rut: "22222222-2", clave: "sandbox22" } }, destinatario: { email: "pagos@cliente.cl", nombre: "Cliente" } },
      })
      .catch((e: unknown) => e);
    expect(write).toMatchObject({ status: 503, error_code: "SII_UNAVAILABLE", retryAfter: 300 });
    expect(sleeps).toEqual([300_000]);
  });

  it("retries a read answered 429 by the SII after its Retry-After, and it succeeds", async () => {
    const { client, sleeps } = await gateway();
    await client.POST("/sandbox/v1/faults", { body: { service: "indicadores", fault: "throttle", count: 1 } });
    const uf = await client.GET("/api/v1/sii/indicadores/uf/anual/{anio}/{mes}/{dia}", {
      params: { path: { anio: 2022, mes: 5, dia: 10 } },
    });
    expect(uf.data.success).toBe(true);
    // The sandbox's throttle page says Retry-After: 60; the client waits exactly that once.
    expect(sleeps).toEqual([60_000]);
  });

  it("replays a write repeated with the same Idempotency-Key: Idempotent-Replayed and the same body", async () => {
    const { client } = await gateway();
    const send = () =>
      client.POST("/api/v1/sii/bhe/emitidas/email/{codigo}", {
        params: { path: { codigo: "222222220000041F99ED" } },
        body: { auth: { pass: { rut: "22222222-2", clave: "sandbox22" } }, destinatario: { email: "pagos@cliente.cl", nombre: "Cliente" } },
        headers: { "Idempotency-Key": "replay-1" },
      });
    const first = await send();
    const again = await send();
    expect([first.response.headers.get("idempotent-replayed"), again.response.headers.get("idempotent-replayed")]).toEqual([null, "true"]);
    expect(again.data).toEqual(first.data);
    expect(first.data.success).toBe(true);
  });

  it("reads an RCV sales summary with the sandbox taxpayer's clave", async () => {
    const { client } = await gateway();
    const rcv = await client.POST("/api/v1/sii/rcv/ventas/resumen/{emisor}/{periodo}", {
      params: { path: { emisor: "76192083-9", periodo: "202401" } },
      body: { auth: { pass: { rut: "76192083-9", clave: "sandbox76" } } },
    });
    expect(rcv.data.success).toBe(true);
    expect(rcv.data.data).toMatchObject({ rut: "76192083-9", periodo: "202401", operacion: "VENTA" });
    const counted = rcv.data.data.resumen.reduce((n, row) => n + row.documentos, 0);
    expect(counted).toBe(rcv.data.data.total_documentos);
  });

  it("turns a network failure and a proxy's page into GatewayError", async () => {
    const down = createGatewayClient({ baseUrl: "http://127.0.0.1", fetch: () => Promise.reject(new TypeError("fetch failed")) });
    await expect(down.GET("/healthz")).rejects.toMatchObject({ status: 0, error_code: "NETWORK_ERROR" });
    const page = () => Promise.resolve(new Response("<html>Bad gateway</html>", { status: 502, headers: { "content-type": "text/html" } }));
    const proxied = createGatewayClient({ baseUrl: "http://127.0.0.1", fetch: page });
    await expect(proxied.GET("/healthz")).rejects.toMatchObject({ status: 502, error_code: "UNEXPECTED_ANSWER" });
  });

  it("compiles with tsc --strict on its own tsconfig", () => {
    const require = createRequire(import.meta.url);
    const tsc = join(dirname(require.resolve("typescript/package.json")), "bin/tsc");
    const run = spawnSync(process.execPath, [tsc, "-p", join(import.meta.dirname, ".."), "--noEmit"], { encoding: "utf8" });
    expect(`${run.stdout}${run.stderr}`).toBe("");
    expect(run.status).toBe(0);
  });
});
