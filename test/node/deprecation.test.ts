// A deprecated operation says so twice: `deprecated: true` (and a sentence) in the OpenAPI document,
// and the Deprecation (RFC 9745), Sunset (RFC 8594) and Link headers on each of its answers, its
// refusals included. No operation is deprecated today, so the test registers one.
import { createRoute, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { registerOperation } from "../../src/platform/operation.ts";
import { probeApp, tokenFor } from "../support/app.ts";

const since = new Date("2026-12-01T00:00:00Z");
const sunset = new Date("2027-06-01T00:00:00Z");
const path = "/api/v1/test/old/{contribuyente}";

function appWithOldOperation() {
  const t = probeApp();
  registerOperation(
    t.app,
    createRoute({
      method: "get",
      path,
      description: "An operation kept for old clients.",
      request: { params: z.object({ contribuyente: z.string().regex(/^\d+-[\dK]$/) }) },
      responses: { 200: { description: "ok" } },
    }),
    { scope: "sii:read", weight: 1, deprecated: { since, sunset, link: "/docs/#/Account" } },
    async (c) => c.json({ ok: true }),
  );
  return t;
}

describe("a deprecated operation", () => {
  it("is marked in the document, with when it goes and where to look", async () => {
    const { app } = appWithOldOperation();
    const doc = (await (await app.request("/openapi.json")).json()) as {
      paths: Record<string, Record<string, { deprecated?: boolean; description?: string }>>;
    };
    const operation = doc.paths["/api/v1/test/old/{contribuyente}"]?.get;
    expect(operation?.deprecated).toBe(true);
    expect(operation?.description).toContain("An operation kept for old clients.");
    expect(operation?.description).toContain("may be removed after 2027-06-01");
    expect(doc.paths["/api/v1/usage"]?.get?.deprecated).toBeUndefined();
  });

  it("answers with Deprecation, Sunset and Link, on a success and on a refusal", async () => {
    const t = appWithOldOperation();
    const { secret } = await tokenFor(t.deps);
    for (const [rut, status] of [
      ["76192083-9", 200],
      ["not-a-rut", 400],
    ] as const) {
      const res = await t.app.request(`/api/v1/test/old/${rut}`, { headers: { "x-api-token": secret } });
      expect(res.status).toBe(status);
      expect(res.headers.get("deprecation")).toBe(`@${since.getTime() / 1000}`);
      expect(res.headers.get("sunset")).toBe("Tue, 01 Jun 2027 00:00:00 GMT");
      expect(res.headers.get("link")).toBe('</docs/#/Account>; rel="deprecation"');
    }
    const usage = await t.app.request("/api/v1/usage", { headers: { "x-api-token": secret } });
    expect(usage.headers.get("deprecation")).toBeNull();
  });
});
