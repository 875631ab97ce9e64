// POST /admin/v1/tokens/{id}/block and /unblock: one operation shape with the flag it sets
// (tokens-block.ts, tokens-unblock.ts register each).
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { errorResponses, jsonContent } from "../../platform/schemas.ts";
import { setBlocked } from "../../services/tokens.ts";
import { common } from "./guard.ts";
import { TokenEnvelope, TokenId } from "./schema.ts";

/** Blocking and unblocking: the same handler with the flag it sets. */
export function registerBlocking(app: OpenAPIHono<AppEnv>, path: string, blocked: boolean): void {
  const action = blocked ? "block" : "unblock";
  app.openapi(
    createRoute({
      ...common,
      method: "post",
      path,
      operationId: `admin_tokens_${action}`,
      summary: blocked ? "Block a token (its calls get 403 ACCOUNT_BLOCKED)" : "Unblock a token",
      description: blocked
        ? "Its calls are refused with 403 ACCOUNT_BLOCKED until it is unblocked; nothing else changes. Needs `Authorization: Bearer <ADMIN_TOKEN>`."
        : "Its calls are served again. Needs `Authorization: Bearer <ADMIN_TOKEN>`.",
      request: { params: TokenId },
      responses: { 200: jsonContent(TokenEnvelope, "Token"), ...errorResponses([400, 401, 404]) },
    }),
    async (c) => {
      const token = await setBlocked(callerOf(c), c.req.valid("param").id, blocked);
      return ok(c, token, blocked ? "Token blocked" : "Token unblocked");
    },
  );
}
