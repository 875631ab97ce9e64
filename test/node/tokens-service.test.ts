// The token service serves the operator with no HTTP request: a Caller built from the test app's
// deps (the operator is no account), plain data back and a 404 ApiError for an unknown id.
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/platform/errors.ts";
import { createToken, listTokens, revokeToken, setBlocked, tokenWithUsage } from "../../src/services/tokens.ts";
import { probeApp } from "../support/app.ts";
import { testCaller } from "../support/caller.ts";

describe("the token service", () => {
  it("issues, shows with usage, blocks and revokes a token, never with its hash", async () => {
    const caller = testCaller(probeApp().deps);
    const plan = { daily_units: 10, monthly_units: 100 };
    const issued = await createToken(caller, { name: "erp", account: "acme", scopes: ["sii:read"], plan });
    expect(issued.token).toMatch(/^sii_/);
    expect(issued).not.toHaveProperty("token_hash");
    const shown = await tokenWithUsage(caller, issued.id);
    expect(shown).toMatchObject({ id: issued.id, usage: { daily: { used: 0, limit: 10, remaining: 10 } } });
    expect(shown).not.toHaveProperty("token");
    expect(await setBlocked(caller, issued.id, true)).toMatchObject({ id: issued.id, blocked: true });
    expect((await listTokens(caller)).tokens.map((t) => [t.id, t.blocked])).toContainEqual([issued.id, true]);
    await revokeToken(caller, issued.id);
    const gone = await tokenWithUsage(caller, issued.id).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(ApiError);
    expect(gone).toMatchObject({ status: 404 });
  });
});
