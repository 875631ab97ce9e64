// The sandbox controls change state every caller shares: off loopback they need the development
// token or the admin token; on loopback (tests, `npm run dev`) they stay open.
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { nodeFront } from "../../src/entry/node-server.ts";
import { documentOf, errorOf } from "../support/answers.ts";
import { ADMIN, testDeps } from "../support/app.ts";

const DEV = "sii_dev_test-development-token-0123456789";
const fault = JSON.stringify({ service: "seed", fault: "maintenance", count: 1 });

function setup() {
  const { deps } = testDeps(undefined, { devToken: DEV });
  return { app: createApp(() => deps), deps };
}

type Fetch = (req: Request, env?: unknown) => Response | Promise<Response>;

function add(fetch: Fetch, url: string, headers: Record<string, string> = {}, env?: unknown) {
  return fetch(new Request(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: fault }), env);
}

const node = (remoteAddress: string) => ({ incoming: { socket: { remoteAddress } }, outgoing: {} });

describe("sandbox controls off loopback", () => {
  it("stay open on loopback, as the tests and npm run dev use them", async () => {
    const { app } = setup();
    const fetch: Fetch = (req, env) => app.fetch(req, env as never);
    expect((await add(fetch, "http://localhost/sandbox/v1/faults")).status).toBe(200);
    expect((await add(fetch, "http://127.0.0.1:8787/sandbox/v1/faults")).status).toBe(200);
  });

  it("need the development or the admin token on a deployed host (Workers: no peer address)", async () => {
    const { app } = setup();
    const fetch: Fetch = (req, env) => app.fetch(req, env as never);
    const url = "https://sii-gateway-preview.example.workers.dev/sandbox/v1/faults";
    const refused = await add(fetch, url);
    expect(refused.status).toBe(401);
    expect((await errorOf(refused)).error_code).toBe("HTTP_401");
    expect((await add(fetch, url, { "x-api-token": "wrong" })).status).toBe(401);
    expect((await add(fetch, url, { "x-api-token": DEV })).status).toBe(200);
    expect((await add(fetch, url, { authorization: `Bearer ${DEV}` })).status).toBe(200);
    expect((await add(fetch, url, { authorization: `Bearer ${ADMIN}` })).status).toBe(200);
    for (const [method, path] of [
      ["GET", "/sandbox/v1/calls"],
      ["DELETE", "/sandbox/v1/calls"],
      ["DELETE", "/sandbox/v1/faults"],
      ["DELETE", "/sandbox/v1/replays"],
    ] as const) {
      const res = await fetch(new Request(`https://sii-gateway-preview.example.workers.dev${path}`, { method }));
      expect(res.status, `${method} ${path}`).toBe(401);
    }
    // A recorded answer changes what every caller's SII says: guarded like the faults.
    const replay = (headers: Record<string, string>) =>
      fetch(
        new Request("https://sii-gateway-preview.example.workers.dev/sandbox/v1/replays", {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: JSON.stringify({ service: "indicadores", status: 200, body: "" }),
        }),
      );
    expect((await replay({})).status).toBe(401);
    expect((await replay({ "x-api-token": "wrong" })).status).toBe(401);
    expect((await replay({ "x-api-token": DEV })).status).toBe(200);
    expect((await replay({ authorization: `Bearer ${ADMIN}` })).status).toBe(200);
    // The test credentials change nothing and stay public.
    expect((await fetch(new Request("https://sii-gateway-preview.example.workers.dev/sandbox/v1/credentials"))).status).toBe(200);
  });

  it("on Node, the peer's address decides, not the Host header; a proxied request is never local", async () => {
    const { app } = setup();
    const front = nodeFront(app, "/nonexistent").fetch as Fetch;
    expect((await add(front, "http://localhost/sandbox/v1/faults", {}, node("203.0.113.7"))).status).toBe(401);
    expect((await add(front, "http://localhost/sandbox/v1/faults", { "x-api-token": DEV }, node("203.0.113.7"))).status).toBe(200);
    expect((await add(front, "http://gateway.example.cl/sandbox/v1/faults", {}, node("127.0.0.1"))).status).toBe(200);
    expect((await add(front, "http://gateway.example.cl/sandbox/v1/faults", {}, node("::ffff:127.0.0.1"))).status).toBe(200);
    expect((await add(front, "http://localhost/sandbox/v1/faults", { "x-forwarded-for": "198.51.100.4" }, node("127.0.0.1"))).status).toBe(
      401,
    );
  });

  it("on Lambda, the API Gateway event's source address decides", async () => {
    const { app } = setup();
    const fetch: Fetch = (req, env) => app.fetch(req, env as never);
    const lambda = (sourceIp: string) => ({ event: { requestContext: { http: { sourceIp } } } });
    expect((await add(fetch, "http://localhost/sandbox/v1/faults", {}, lambda("203.0.113.9"))).status).toBe(401);
    expect(
      (await add(fetch, "http://localhost/sandbox/v1/faults", { authorization: `Bearer ${ADMIN}` }, lambda("203.0.113.9"))).status,
    ).toBe(200);
  });

  it("documents that loopback needs no token and elsewhere either token does, with their 401", async () => {
    const { app } = setup();
    const doc = await documentOf(await app.request("/openapi.json"));
    for (const [path, method] of [
      ["/sandbox/v1/faults", "post"],
      ["/sandbox/v1/faults", "delete"],
      ["/sandbox/v1/calls", "get"],
      ["/sandbox/v1/calls", "delete"],
      ["/sandbox/v1/replays", "post"],
      ["/sandbox/v1/replays", "delete"],
    ] as const) {
      const op = doc.paths?.[path]?.[method];
      // The anonymous alternative ({}) for loopback, and the two tokens for everywhere else.
      expect(op?.security, `${method} ${path}`).toEqual([{}, { ApiToken: [] }, { AdminToken: [] }]);
      expect(op?.description, `${method} ${path}`).toMatch(/^No token from loopback .*; otherwise .*DEV_API_TOKEN.*ADMIN_TOKEN/);
      expect(op?.responses?.["401"], `${method} ${path}`).toBeDefined();
    }
  });
});
