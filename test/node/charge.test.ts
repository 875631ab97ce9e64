// chargeUnits: an operation adds units to its request's charge (one per document it queries at
// the SII, say); X-Quota-Units and the usage counters report the sum, and a refund gives back all.
import { createRoute, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { chargeUnits } from "../../src/platform/charge.ts";
import { ok } from "../../src/platform/envelope.ts";
import { ApiError } from "../../src/platform/errors.ts";
import { registerOperation } from "../../src/platform/operation.ts";
import { envelope, jsonContent } from "../../src/platform/schemas.ts";
import { UsageEnvelope } from "../../src/routes/usage/get.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { probeApp, tokenFor } from "../support/app.ts";

async function setup(plan = { daily_units: 100, monthly_units: 1000 }) {
  const t = probeApp();
  const behaviour = { units: 3, refuse: false, callSii: false };
  registerOperation(
    t.app,
    createRoute({
      method: "get",
      path: "/api/v1/test/probes/per-document",
      responses: { 200: jsonContent(envelope(z.object({ n: z.number() })), "ok") },
    }),
    { scope: "sii:read", weight: 2 },
    async (c) => {
      await chargeUnits(c, behaviour.units);
      if (behaviour.callSii) await (await c.get("deps").sii.fetch(new Request("https://palena.sii.cl/probe"))).arrayBuffer();
      if (behaviour.refuse) throw new ApiError(400, "VALIDATION_ERROR", "refused by the probe");
      return ok(c, { n: behaviour.units });
    },
  );
  const token = await tokenFor(t.deps, { plan });
  const get = (path: string) => t.app.request(path, { headers: { "x-api-token": token.secret } });
  const used = async () => (await answerOf(await get("/api/v1/usage"), UsageEnvelope)).data.usage.daily.used;
  return { get: () => get("/api/v1/test/probes/per-document"), used, behaviour };
}

describe("chargeUnits", () => {
  it("adds units to the weight: X-Quota-Units and usage report the sum", async () => {
    const { get, used } = await setup();
    const res = await get();
    expect([res.status, res.headers.get("x-quota-units")]).toEqual([200, "5"]);
    expect(res.headers.get("x-ratelimit-remaining")).toBe("95");
    expect(await used()).toBe(5);
  });

  it("gives back the added units with the weight when the call is refused before the SII", async () => {
    const { get, used, behaviour } = await setup();
    behaviour.refuse = true;
    const res = await get();
    expect([res.status, res.headers.get("x-quota-units")]).toEqual([400, "0"]);
    expect(await used()).toBe(0);
  });

  it("keeps them all when the refusal came after an SII call", async () => {
    const { get, used, behaviour } = await setup();
    behaviour.refuse = true;
    behaviour.callSii = true;
    expect((await get()).headers.get("x-quota-units")).toBe("5");
    expect(await used()).toBe(5);
  });

  it("answers 429 QUOTA_EXCEEDED when the plan lacks the added units, charging nothing", async () => {
    const { get, used, behaviour } = await setup({ daily_units: 10, monthly_units: 1000 });
    behaviour.units = 9;
    const res = await get();
    const body = await errorOf(res);
    expect([res.status, body.error_code, body.details?.units_needed]).toEqual([429, "QUOTA_EXCEEDED", 9]);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(res.headers.get("x-quota-units")).toBe("0");
    expect(await used()).toBe(0);
  });
});
