// One date-time format for a quota window's reset: the 429 QUOTA_EXCEEDED body's `details` gives
// each window as GET /api/v1/usage does (`resets_at` ISO 8601); only X-RateLimit-Reset, a header,
// counts Unix seconds.
import { describe, expect, it } from "vitest";
import { UsageEnvelope } from "../../src/routes/usage/get.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { probeApp, readPath, tokenFor } from "../support/app.ts";

describe("resets_at", () => {
  it("is ISO 8601 in the 429 QUOTA_EXCEEDED details, equal to /api/v1/usage's, and the header's Unix seconds name the same instant", async () => {
    const { app, deps } = probeApp();
    const token = await tokenFor(deps, { plan: { daily_units: 1, monthly_units: 100 } });
    const get = (path: string) => app.request(path, { headers: { "x-api-token": token.secret } });
    expect((await get(readPath)).status).toBe(200);
    const refused = await get(readPath);
    const error = await errorOf(refused);
    expect([refused.status, error.error_code]).toEqual([429, "QUOTA_EXCEEDED"]);
    const usage = (await answerOf(await get("/api/v1/usage"), UsageEnvelope)).data.usage;
    expect(error.details).toEqual({ units_needed: 1, daily: usage.daily, monthly: usage.monthly });
    const daily = error.details?.daily as { resets_at: unknown; remaining: unknown };
    expect(daily.resets_at).toMatch(/^\d{4}-\d\d-\d\dT00:00:00\.000Z$/);
    expect(daily.remaining).toBe(0);
    expect(Number(refused.headers.get("x-ratelimit-reset")) * 1000).toBe(Date.parse(String(daily.resets_at)));
  });
});
