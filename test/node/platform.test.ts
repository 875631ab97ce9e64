// Platform behaviour through the real app (memory stores): envelope, errors, auth, scopes,
// quota, idempotency, dry_run, parameters.
import { describe, expect, it } from "vitest";
import { CreatedTokenEnvelope, TokenListEnvelope, TokenWithUsageEnvelope } from "../../src/routes/admin/schema.ts";
import { UsageEnvelope } from "../../src/routes/usage/get.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { ADMIN, ProbeAnswer, probeApp, readPath, tokenFor, writeBody, writePath } from "../support/app.ts";

const json = { "content-type": "application/json" };

async function setup(options: Parameters<typeof tokenFor>[1] = {}, config = {}) {
  const t = probeApp(undefined, config);
  const token = await tokenFor(t.deps, options);
  const call = (path: string, init: RequestInit = {}) =>
    t.app.request(path, { ...init, headers: { "x-api-token": token.secret, ...(init.headers as Record<string, string>) } });
  return { ...t, token, call };
}

describe("envelope and errors", () => {
  it("answers unknown routes with HTTP_404, a request id and a timestamp", async () => {
    const { call } = await setup();
    const res = await call("/api/v1/nope");
    expect(res.status).toBe(404);
    const body = await errorOf(res);
    expect(body).toMatchObject({ success: false, error_code: "HTTP_404" });
    expect(body.request_id).toBe(res.headers.get("x-request-id"));
    expect(Date.parse(body.timestamp)).not.toBeNaN();
  });

  it("answers a wrong method with 405 HTTP_405 and Allow", async () => {
    const { call } = await setup();
    const res = await call(writePath, { method: "GET" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect((await errorOf(res)).error_code).toBe("HTTP_405");
  });

  it("keeps a well-formed client request id and replaces a malformed one", async () => {
    const { call } = await setup();
    expect((await call("/api/v1/usage", { headers: { "x-request-id": "abc-123" } })).headers.get("x-request-id")).toBe("abc-123");
    const replaced = (await call("/api/v1/usage", { headers: { "x-request-id": "bad id <>" } })).headers.get("x-request-id");
    expect(replaced).toMatch(/^req_[0-9a-f]{24}$/);
  });

  it("refuses a body over MAX_BODY_BYTES with 413 PAYLOAD_TOO_LARGE", async () => {
    const { call } = await setup({}, { maxBodyBytes: 100 });
    const res = await call(writePath, { method: "POST", headers: json, body: JSON.stringify({ pad: "x".repeat(200) }) });
    expect(res.status).toBe(413);
    expect((await errorOf(res)).error_code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("answers malformed JSON with 422 VALIDATION_ERROR", async () => {
    const { call } = await setup();
    const res = await call(writePath, { method: "POST", headers: json, body: "{not json" });
    expect(res.status).toBe(422);
    expect((await errorOf(res)).error_code).toBe("VALIDATION_ERROR");
  });

  it("answers a body of the wrong shape with 422 naming each field", async () => {
    const { call } = await setup();
    const res = await call(writePath, { method: "POST", headers: json, body: JSON.stringify({ auth: { cert: {} } }) });
    expect(res.status).toBe(422);
    const body = await errorOf(res);
    expect(body.errors).toEqual([{ path: "auth.cert.cert-data", location: "body", message: "is required" }]);
  });

  it("answers bad path and query parameters with 400 naming each one", async () => {
    const { call } = await setup();
    const res = await call(`${writePath}?ambiente=2&dry_run=maybe`, {
      method: "POST",
      headers: json,
      body: writeBody,
    });
    expect(res.status).toBe(400);
    const body = await errorOf(res);
    expect(body.error_code).toBe("VALIDATION_ERROR");
    const paths = body.errors?.map((e: { path: string }) => e.path).sort();
    expect(paths).toEqual(["ambiente", "dry_run"]);
  });

  it("reports a RUT with a wrong check digit by name", async () => {
    const { call } = await setup();
    const res = await call("/api/v1/test/probes/write/76192083-1", { method: "POST", headers: json, body: writeBody });
    expect(res.status).toBe(400);
    const body = await errorOf(res);
    expect(body.errors?.[0]).toMatchObject({ path: "contribuyente", location: "path" });
    expect(body.errors?.[0]?.message).toContain("check digit");
  });

  it("turns an unexpected exception into 500 INTERNAL_ERROR without its text", async () => {
    const { call, probes, logs } = await setup();
    probes.behaviour.failWith = 500;
    const res = await call(writePath, { method: "POST", headers: json, body: writeBody });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({ error_code: "INTERNAL_ERROR" });
    expect(text).not.toContain("hunter2");
    expect(JSON.stringify(logs)).not.toContain("hunter2");
    expect(res.headers.get("x-quota-units")).toBe("0");
  });
});

describe("authentication and scopes", () => {
  it("refuses a missing or unknown token with 401 HTTP_401 and no quota headers", async () => {
    const { app } = await setup();
    for (const headers of [{}, { "x-api-token": "sii_wrong" }] as Record<string, string>[]) {
      const res = await app.request("/api/v1/usage", { headers });
      expect(res.status).toBe(401);
      expect((await errorOf(res)).error_code).toBe("HTTP_401");
      expect(res.headers.get("x-ratelimit-limit")).toBeNull();
    }
  });

  it("accepts Authorization: Bearer and Authorization: Token", async () => {
    const { app, token } = await setup();
    for (const scheme of ["Bearer", "Token", "bearer"]) {
      const res = await app.request("/api/v1/usage", { headers: { authorization: `${scheme} ${token.secret}` } });
      expect(res.status).toBe(200);
    }
  });

  it("refuses a token without the scope with 403 INSUFFICIENT_SCOPE, before validating the body", async () => {
    const { call } = await setup({ scopes: ["sii:read"] });
    const res = await call(writePath, { method: "POST", headers: json, body: "{broken" });
    expect(res.status).toBe(403);
    const body = await errorOf(res);
    expect(body.error_code).toBe("INSUFFICIENT_SCOPE");
    expect(body.details?.required_scope).toBe("sii:write");
    expect(res.headers.get("x-quota-units")).toBe("0");
  });

  it("refuses a blocked token with 403 ACCOUNT_BLOCKED", async () => {
    const { call, deps, token } = await setup();
    const record = await deps.tokens.getById(token.id);
    await deps.tokens.put({ ...record!, blocked: true });
    const res = await call("/api/v1/usage");
    expect(res.status).toBe(403);
    expect((await errorOf(res)).error_code).toBe("ACCOUNT_BLOCKED");
  });
});

describe("quota", () => {
  it("charges the operation's weight and reports it in the headers", async () => {
    const { call } = await setup({ plan: { daily_units: 12, monthly_units: 100 } });
    const res = await call(writePath, { method: "POST", headers: json, body: writeBody });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-quota-units")).toBe("5");
    expect(res.headers.get("x-ratelimit-limit")).toBe("12");
    expect(res.headers.get("x-ratelimit-remaining")).toBe("7");
    const reset = Number(res.headers.get("x-ratelimit-reset"));
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 86400);
  });

  it("refuses with 429 QUOTA_EXCEEDED and Retry-After once the plan is used up", async () => {
    const { call, probes } = await setup({ plan: { daily_units: 10, monthly_units: 100 } });
    for (let i = 0; i < 2; i++) expect((await call(writePath, { method: "POST", headers: json, body: writeBody })).status).toBe(200);
    const res = await call(writePath, { method: "POST", headers: json, body: writeBody });
    expect(res.status).toBe(429);
    expect((await errorOf(res)).error_code).toBe("QUOTA_EXCEEDED");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(probes.calls.write).toBe(2);
  });

  it("charges nothing for validation failures, dry_run, and 503 from the SII; charges 502", async () => {
    const { call, probes } = await setup();
    const usage = async () => (await answerOf(await call("/api/v1/usage"), UsageEnvelope)).data.usage.daily.used;
    await call(writePath, { method: "POST", headers: json, body: "{}" });
    expect(await usage()).toBe(0);
    const dry = await call(`${writePath}?dry_run=YES`, { method: "POST", headers: json, body: writeBody });
    expect(dry.status).toBe(200);
    expect(dry.headers.get("x-quota-units")).toBe("0");
    expect(await usage()).toBe(0);
    probes.behaviour.failWith = 503;
    const unavailable = await call(writePath, { method: "POST", headers: json, body: writeBody });
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers.get("retry-after")).toBe("300");
    expect(unavailable.headers.get("x-quota-units")).toBe("0");
    expect(await usage()).toBe(0);
    probes.behaviour.failWith = 502;
    const rejected = await call(writePath, { method: "POST", headers: json, body: writeBody });
    expect(rejected.status).toBe(502);
    expect(rejected.headers.get("x-quota-units")).toBe("5");
    expect(await usage()).toBe(5);
  });

  it("lets exactly the allowed number of 50 concurrent weighted calls through", async () => {
    const { call, probes } = await setup({ plan: { daily_units: 20, monthly_units: 1000 } });
    const results = await Promise.all(
      Array.from({ length: 50 }, () => call(writePath, { method: "POST", headers: json, body: writeBody })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(4);
    expect(results.filter((r) => r.status === 429)).toHaveLength(46);
    expect(probes.calls.write).toBe(4);
  });

  it("shows the token's own state at /api/v1/usage at no cost", async () => {
    const { call, token } = await setup({ plan: { daily_units: 50, monthly_units: 60 } });
    await call(readPath);
    const res = await call("/api/v1/usage");
    const body = await answerOf(res, UsageEnvelope);
    expect(res.headers.get("x-quota-units")).toBe("0");
    expect(body.data).toMatchObject({ token_id: token.id, account: "acme", usage: { daily: { used: 1, limit: 50, remaining: 49 } } });
  });
});

describe("Idempotency-Key", () => {
  const post = (call: (p: string, i?: RequestInit) => Response | Promise<Response>, key: string, body = writeBody) =>
    call(writePath, { method: "POST", headers: { ...json, "idempotency-key": key }, body });

  it("replays the first answer for the same key and body, without running or charging again", async () => {
    const { call, probes } = await setup();
    const first = await post(call, "k1");
    const second = await post(call, "k1");
    expect(second.status).toBe(200);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(second.headers.get("x-quota-units")).toBe("0");
    expect(await answerOf(second, ProbeAnswer)).toEqual(await answerOf(first, ProbeAnswer));
    expect(probes.calls.write).toBe(1);
  });

  it("answers 409 IDEMPOTENCY_CONFLICT for the same key with another body", async () => {
    const { call } = await setup();
    await post(call, "k2");
    const res = await post(call, "k2", JSON.stringify({ auth: { cert: { "cert-data": "other" } } }));
    expect(res.status).toBe(409);
    expect((await errorOf(res)).error_code).toBe("IDEMPOTENCY_CONFLICT");
  });

  it("makes a concurrent duplicate wait for the first and get its answer", async () => {
    const { call, probes } = await setup();
    probes.behaviour.delayMs = 150;
    const [a, b] = await Promise.all([post(call, "k3"), post(call, "k3")]);
    expect(probes.calls.write).toBe(1);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect([a.headers.get("idempotent-replayed"), b.headers.get("idempotent-replayed")].sort()).toEqual([null, "true"]);
  });

  it("keeps a failed irreversible attempt (502) so a retry with the key does not resend it", async () => {
    const { call, probes } = await setup();
    probes.behaviour.failWith = 502;
    expect((await post(call, "k4")).status).toBe(502);
    probes.behaviour.failWith = undefined;
    const retry = await post(call, "k4");
    expect(retry.status).toBe(502);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(probes.calls.write).toBe(1);
  });

  it("frees the key after a 503 (nothing reached the SII) so a retry runs", async () => {
    const { call, probes } = await setup();
    probes.behaviour.failWith = 503;
    expect((await post(call, "k5")).status).toBe(503);
    probes.behaviour.failWith = undefined;
    expect((await post(call, "k5")).status).toBe(200);
    expect(probes.calls.write).toBe(2);
  });

  it("checks a malformed key on a dry_run as the real call does (400 naming the header)", async () => {
    const { call, probes } = await setup();
    const send = (query: string) =>
      call(`${writePath}${query}`, { method: "POST", headers: { ...json, "idempotency-key": "two words" }, body: writeBody });
    const real = await send("");
    const preview = await send("?dry_run=true");
    const shape = async (res: Response) => {
      const { request_id: _id, timestamp: _at, ...rest } = await errorOf(res);
      return [res.status, rest];
    };
    const expected = await shape(real);
    expect(await shape(preview)).toEqual(expected);
    expect(expected).toMatchObject([400, { error_code: "VALIDATION_ERROR", errors: [{ path: "Idempotency-Key", location: "header" }] }]);
    expect(probes.calls.write).toBe(0);
  });

  it("refuses with 409 a replay whose Accept refuses the stored answer's media type, and serves one that accepts it", async () => {
    const { call } = await setup();
    const send = (accept?: string) =>
      call(writePath, {
        method: "POST",
        headers: { ...json, "idempotency-key": "k-accept", ...(accept ? { accept } : {}) },
        body: writeBody,
      });
    expect((await send("application/json")).status).toBe(200);
    const refused = await send("text/csv");
    const body = await errorOf(refused);
    expect([refused.status, body.error_code]).toEqual([409, "IDEMPOTENCY_CONFLICT"]);
    expect(body.message).toContain("application/json, which this request's Accept header does not accept");
    for (const accept of ["application/*", "*/*", "text/csv, application/json;q=0.5", undefined]) {
      expect((await send(accept)).headers.get("idempotent-replayed"), String(accept)).toBe("true");
    }
  });

  it("replays a stored error whatever the Accept: errors are JSON on a first call too", async () => {
    const { call, probes } = await setup();
    probes.behaviour.failWith = 502;
    const send = () =>
      call(writePath, { method: "POST", headers: { ...json, "idempotency-key": "k-err", accept: "text/csv" }, body: writeBody });
    expect((await send()).status).toBe(502);
    const again = await send();
    expect([again.status, again.headers.get("idempotent-replayed")]).toEqual([502, "true"]);
  });

  it("keeps keys per account", async () => {
    const { app, deps, probes } = await setup();
    const other = await tokenFor(deps, { account: "globex" });
    const mine = await tokenFor(deps, { account: "acme" });
    for (const t of [mine, other]) {
      const res = await app.request(writePath, {
        method: "POST",
        headers: { ...json, "x-api-token": t.secret, "idempotency-key": "shared" },
        body: writeBody,
      });
      expect(res.headers.get("idempotent-replayed")).toBeNull();
    }
    expect(probes.calls.write).toBe(2);
  });
});

describe("admin API", () => {
  const admin = { authorization: `Bearer ${ADMIN}`, ...json };

  it("issues a token whose secret works once shown, lists without secrets, blocks, unblocks and revokes", async () => {
    const { app } = await setup();
    const created = await app.request("/admin/v1/tokens", {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ name: "erp", account: "initech", scopes: ["sii:read"], plan: { daily_units: 5, monthly_units: 9 } }),
    });
    expect(created.status).toBe(201);
    const { data } = await answerOf(created, CreatedTokenEnvelope);
    expect(data).toMatchObject({ name: "erp", account: "initech", scopes: ["sii:read"], plan: { daily_units: 5, monthly_units: 9 } });
    expect(data.token).toMatch(/^sii_[A-Za-z0-9_-]{43}$/);
    expect(data).not.toHaveProperty("token_hash");

    const use = () => app.request("/api/v1/usage", { headers: { "x-api-token": data.token } });
    expect((await use()).status).toBe(200);

    const list = await answerOf(await app.request("/admin/v1/tokens", { headers: admin }), TokenListEnvelope);
    const listed = JSON.stringify(list);
    expect(listed).toContain(data.id);
    expect(listed).not.toContain(data.token);
    expect(listed).not.toContain("token_hash");

    const shown = await answerOf(await app.request(`/admin/v1/tokens/${data.id}`, { headers: admin }), TokenWithUsageEnvelope);
    expect(shown.data.usage.daily).toMatchObject({ used: 0, limit: 5 });

    expect((await app.request(`/admin/v1/tokens/${data.id}/block`, { method: "POST", headers: admin })).status).toBe(200);
    expect((await use()).status).toBe(403);
    expect((await app.request(`/admin/v1/tokens/${data.id}/unblock`, { method: "POST", headers: admin })).status).toBe(200);
    expect((await use()).status).toBe(200);
    expect((await app.request(`/admin/v1/tokens/${data.id}`, { method: "DELETE", headers: admin })).status).toBe(200);
    expect((await use()).status).toBe(401);
    expect((await app.request(`/admin/v1/tokens/${data.id}`, { headers: admin })).status).toBe(404);
  });

  it("refuses a wrong admin token with 401 and a bad body with 422", async () => {
    const { app } = await setup();
    expect((await app.request("/admin/v1/tokens", { headers: { authorization: "Bearer nope" } })).status).toBe(401);
    const res = await app.request("/admin/v1/tokens", {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ name: "", account: "a b", scopes: ["root"] }),
    });
    expect(res.status).toBe(422);
    const paths = (await errorOf(res)).errors?.map((e: { path: string }) => e.path);
    expect(paths).toEqual(expect.arrayContaining(["name", "account", "scopes[0]"]));
  });

  it("does not exist without ADMIN_TOKEN", async () => {
    const { app } = await setup({}, { adminToken: undefined });
    const res = await app.request("/admin/v1/tokens", { headers: admin });
    expect(res.status).toBe(404);
    expect((await errorOf(res)).error_code).toBe("HTTP_404");
  });
});
