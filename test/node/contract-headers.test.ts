// The headers the OpenAPI document declares per operation and status are the ones real calls
// get: a listed header sent is declared there, and a header declared required is sent.
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { EXAMPLE_PFX } from "../../src/routes/example-credentials.ts";
import { EXAMPLE_CAF, EXAMPLE_EXEMPT_INVOICE } from "../../src/routes/example-documents.ts";
import { documentOf, type OpenApiDocument, type OpenApiResponse } from "../support/answers.ts";
import { testDeps, tokenFor } from "../support/app.ts";

const LISTED = [
  "X-Request-Id",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "X-Quota-Units",
  "Retry-After",
  "Idempotent-Replayed",
  "X-Folios-Remaining",
  "X-Folios-Low",
];

const bhePath = "/api/v1/sii/bhe/emitidas/email/{codigo}";
const bhe = "/api/v1/sii/bhe/emitidas/email/222222220000041F99ED";
const bheBody = JSON.stringify({ auth: { pass: { rut: "22222222-2", clave: "sandbox22" } }, destinatario: { email: "a@b.cl" } });

async function setup(plan?: { daily_units: number; monthly_units: number }) {
  const { deps } = testDeps();
  const app = createApp(() => deps);
  const token = await tokenFor(deps, plan ? { plan } : {});
  const doc = await documentOf(await app.request("/openapi.json"));
  return { app, token, doc };
}

/** The listed headers declared for one answer: name → required. */
function declared(doc: OpenApiDocument, method: "get" | "post", path: string, status: number): Map<string, boolean> {
  const response: OpenApiResponse | undefined = doc.paths?.[path]?.[method]?.responses?.[String(status)];
  expect(response, `${method} ${path} declares ${status}`).toBeDefined();
  const out = new Map<string, boolean>();
  for (const [name, value] of Object.entries((response && "headers" in response && response.headers) || {})) {
    const header = value.$ref ? doc.components?.headers?.[value.$ref.split("/").pop() ?? ""] : value;
    expect(header, `${name} resolves`).toBeDefined();
    out.set(name.toLowerCase(), header !== undefined && "required" in header && header.required === true);
  }
  return out;
}

function expectHeadersMatch(doc: OpenApiDocument, method: "get" | "post", path: string, res: Response): void {
  const decl = declared(doc, method, path, res.status);
  for (const name of LISTED) {
    const key = name.toLowerCase();
    const sent = res.headers.has(key);
    if (sent) expect(decl.has(key), `${method} ${path} ${res.status} sends ${name} without declaring it`).toBe(true);
    if (decl.get(key)) expect(sent, `${method} ${path} ${res.status} declares ${name} required but does not send it`).toBe(true);
  }
}

const post = (app: ReturnType<typeof createApp>, secret: string | null, headers: Record<string, string> = {}, body = bheBody) =>
  app.request(bhe, {
    method: "POST",
    headers: { "content-type": "application/json", ...(secret ? { "x-api-token": secret } : {}), ...headers },
    body,
  });

describe("declared response headers match the headers sent", () => {
  it("a read: quota headers on the answer, none of the write headers", async () => {
    const { app, token, doc } = await setup();
    const res = await app.request("/api/v1/usage", { headers: { "x-api-token": token.secret } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-limit")).toBe("1000");
    expectHeadersMatch(doc, "get", "/api/v1/usage", res);
    const anonymous = await app.request("/api/v1/usage");
    expect(anonymous.status).toBe(401);
    expectHeadersMatch(doc, "get", "/api/v1/usage", anonymous);
  });

  it("a write: Idempotency-Key declared, the replay says so, a refusal of the body is no replay", async () => {
    const { app, token, doc } = await setup();
    const parameters = (doc.paths?.[bhePath]?.post?.parameters ?? []).map((p) =>
      "$ref" in p ? doc.components?.parameters?.[p.$ref.split("/").pop() ?? ""] : p,
    );
    const key = parameters.find((p) => p !== undefined && "name" in p && p.name === "Idempotency-Key");
    expect(key).toMatchObject({ in: "header", schema: { maxLength: 255 } });
    expect(doc.paths?.["/api/v1/usage"]?.get?.parameters ?? []).not.toContainEqual(
      expect.objectContaining({ $ref: expect.stringContaining("Idempotency") }),
    );
    const first = await post(app, token.secret, { "idempotency-key": "k-1" });
    const again = await post(app, token.secret, { "idempotency-key": "k-1" });
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expectHeadersMatch(doc, "post", bhePath, first);
    expectHeadersMatch(doc, "post", bhePath, again);
    const tooLong = await post(app, token.secret, { "idempotency-key": "k".repeat(256) });
    expect(tooLong.status).toBe(400);
    expectHeadersMatch(doc, "post", bhePath, tooLong);
    const invalid = await post(app, token.secret, {}, JSON.stringify({ auth: {} }));
    expect(invalid.status).toBe(422);
    expectHeadersMatch(doc, "post", bhePath, invalid);
  });

  it("429 and 503 carry Retry-After as declared", async () => {
    const { app, token, doc } = await setup({ daily_units: 1, monthly_units: 10 });
    const refused = await post(app, token.secret);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expectHeadersMatch(doc, "post", bhePath, refused);

    const open = await setup();
    const fault = await open.app.request("/sandbox/v1/faults", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ service: "clave_login", fault: "maintenance", count: 1 }),
    });
    expect(fault.status).toBe(200);
    const down = await post(open.app, open.token.secret);
    expect(down.status).toBe(503);
    expectHeadersMatch(open.doc, "post", bhePath, down);
    expectHeadersMatch(open.doc, "post", "/sandbox/v1/faults", fault);
  });

  it("generar with the folio ledger sends X-Folios-Remaining and X-Folios-Low as declared; with its own caf it does not", async () => {
    const { app, token, doc } = await setup();
    const generarPath = "/api/v1/platform/dte/documentos/generar";
    const send = (path: string, body: unknown, method = "POST") =>
      app.request(path, {
        method,
        headers: { "content-type": "application/json", "x-api-token": token.secret },
        body: JSON.stringify(body),
      });
    const request = {
      auth: { cert: EXAMPLE_PFX },
      dte: EXAMPLE_EXEMPT_INVOICE,
      caf: EXAMPLE_CAF,
      resolucion: { fecha: "2014-08-22", numero: 80 },
    };
    const own = await send(generarPath, request);
    expect([own.status, own.headers.has("x-folios-remaining")]).toEqual([200, false]);
    expectHeadersMatch(doc, "post", generarPath, own);
    expect((await send("/api/v1/platform/dte/folios/76192083-9/34", { caf: EXAMPLE_CAF })).status).toBe(200);
    const { Folio: _folio, ...idDoc } = EXAMPLE_EXEMPT_INVOICE.Encabezado.IdDoc;
    const { caf: _caf, ...withoutCaf } = request;
    const dte = { ...EXAMPLE_EXEMPT_INVOICE, Encabezado: { ...EXAMPLE_EXEMPT_INVOICE.Encabezado, IdDoc: idDoc } };
    const fromLedger = await send(generarPath, { ...withoutCaf, dte });
    expect([fromLedger.status, fromLedger.headers.get("x-folios-remaining"), fromLedger.headers.get("x-folios-low")]).toEqual([
      200,
      "99",
      null,
    ]);
    expectHeadersMatch(doc, "post", generarPath, fromLedger);
    expect((await send("/api/v1/platform/dte/folios/76192083-9/34/umbral", { umbral: 98 }, "PUT")).status).toBe(200);
    const low = await send(generarPath, { ...withoutCaf, dte });
    expect([low.status, low.headers.get("x-folios-remaining"), low.headers.get("x-folios-low")]).toEqual([200, "98", "true"]);
    expectHeadersMatch(doc, "post", generarPath, low);
  });
});
