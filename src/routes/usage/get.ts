// GET /api/v1/usage: the calling token's own quota state.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { envelope, jsonContent } from "../../platform/schemas.ts";
import { tokenUsage } from "../../services/tokens.ts";
import { Plan, Usage } from "../plan-usage.ts";

export const UsageEnvelope = envelope(
  z.object({ token_id: z.string(), account: z.string(), scopes: z.array(z.string()), plan: Plan, usage: Usage }),
);

export function registerUsageGet(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "get",
      path: "/api/v1/usage",
      tags: ["Account"],
      summary: "Quota state of the calling token (costs no units)",
      description:
        "The calling token's id, account, scopes and plan, and the units used and left in the current UTC day and month (the `X-RateLimit-*` headers give the binding window on every answer). Any scope may call it; it is never charged.",
      responses: { 200: jsonContent(UsageEnvelope, "Usage") },
    }),
    { scope: null, weight: 0 },
    async (c) => {
      const principal = c.get("principal");
      if (!principal) throw new Error("usage reached without a principal");
      const { tokenId, account, scopes, plan } = principal;
      const usage = await tokenUsage(callerOf(c), { id: tokenId, plan });
      return ok(c, { token_id: tokenId, account, scopes, plan, usage });
    },
  );
}
