// GET /admin/v1/tokens: every token, oldest first, never with its secret.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { errorResponses, jsonContent } from "../../platform/schemas.ts";
import { publicToken } from "../../platform/tokens.ts";
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
      const tokens = (await c.get("deps").tokens.list()).sort((a, b) => a.created_at.localeCompare(b.created_at));
      return ok(c, { tokens: tokens.map(publicToken) });
    },
  );
}
