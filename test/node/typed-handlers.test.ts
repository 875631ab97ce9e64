// registerOperation keeps the route's types: a handler reads `c.req.valid(target)` as what the
// route's schemas output (type-checked by `npm run typecheck`), and at run time gets the values
// the validation produced (defaults applied, strings coerced).
import { createRoute, z } from "@hono/zod-openapi";
import { describe, expect, expectTypeOf, it } from "vitest";
import { ok } from "../../src/platform/envelope.ts";
import { registerOperation } from "../../src/platform/operation.ts";
import { envelope, jsonBody, jsonContent } from "../../src/platform/schemas.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { probeApp, tokenFor } from "../support/app.ts";

const PATH = "/api/v1/test/probes/typed/{contribuyente}";
/** What the probe answers: every part it was handed. */
const Echo = envelope(
  z.object({
    param: z.object({ contribuyente: z.string() }),
    query: z.object({ pagina: z.number() }),
    header: z.object({ "x-canal": z.enum(["web", "pos"]) }),
    json: z.object({ monto: z.number(), glosa: z.string() }),
  }),
);

async function setup() {
  const t = probeApp();
  registerOperation(
    t.app,
    createRoute({
      method: "post",
      path: PATH,
      request: {
        params: z.object({ contribuyente: z.string() }),
        query: z.object({ pagina: z.coerce.number().int().default(1) }),
        headers: z.object({ "x-canal": z.enum(["web", "pos"]) }),
        body: jsonBody(z.object({ monto: z.number(), glosa: z.string().default("sin glosa") })),
      },
      responses: { 200: jsonContent(Echo, "ok") },
    }),
    { scope: "sii:read", weight: 1 },
    (c) => {
      const param = c.req.valid("param");
      const query = c.req.valid("query");
      const header = c.req.valid("header");
      const json = c.req.valid("json");
      expectTypeOf(param).toEqualTypeOf<{ contribuyente: string }>();
      expectTypeOf(query).toEqualTypeOf<{ pagina: number }>();
      expectTypeOf(header).toEqualTypeOf<{ "x-canal": "web" | "pos" }>();
      expectTypeOf(json).toEqualTypeOf<{ monto: number; glosa: string }>();
      expectTypeOf(c.req.param("contribuyente")).toEqualTypeOf<string>();
      // @ts-expect-error: the route declares no form body.
      c.req.valid("form");
      return ok(c, { param, query, header, json });
    },
  );
  const { secret } = await tokenFor(t.deps);
  return { app: t.app, secret };
}

describe("registerOperation's typed handlers", () => {
  it("hand the handler every validated part as the route's schemas output it", async () => {
    const { app, secret } = await setup();
    const res = await app.request("/api/v1/test/probes/typed/76192083-9?pagina=3", {
      method: "POST",
      headers: { "x-api-token": secret, "x-canal": "pos", "content-type": "application/json" },
      body: JSON.stringify({ monto: 1190 }),
    });
    expect(res.status).toBe(200);
    expect((await answerOf(res, Echo)).data).toEqual({
      param: { contribuyente: "76192083-9" },
      query: { pagina: 3 },
      header: { "x-canal": "pos" },
      json: { monto: 1190, glosa: "sin glosa" },
    });
  });

  it("refuse a part that fails its schema before the handler runs", async () => {
    const { app, secret } = await setup();
    const res = await app.request("/api/v1/test/probes/typed/76192083-9", {
      method: "POST",
      headers: { "x-api-token": secret, "x-canal": "fax", "content-type": "application/json" },
      body: JSON.stringify({ monto: 1190 }),
    });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).error_code).toBe("VALIDATION_ERROR");
  });
});
