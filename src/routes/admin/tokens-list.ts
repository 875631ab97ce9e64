// GET /admin/v1/tokens: every token, oldest first, never with its secret.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { errorResponses, jsonContent } from "../../platform/schemas.ts";
import { listTokens } from "../../services/tokens.ts";
import { common } from "./guard.ts";
import { TokenListEnvelope } from "./schema.ts";

export function registerAdminTokensList(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      ...common,
      method: "get",
      path: "/admin/v1/tokens",
      operationId: "admin_tokens_list",
      summary: "List tokens (never their secrets)",
      description: "Every token's id, account, scopes, plan and state, never a secret. Needs `Authorization: Bearer <ADMIN_TOKEN>`.",
      responses: { 200: jsonContent(TokenListEnvelope, "Tokens"), ...errorResponses([401, 404]) },
    }),
    async (c) => {
      return ok(c, await listTokens(callerOf(c)));
    },
  );
}
