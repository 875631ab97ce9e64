// GET /admin/v1/tokens/{id}: a token with its quota usage.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { errorResponses, jsonContent } from "../../platform/schemas.ts";
import { tokenWithUsage } from "../../services/tokens.ts";
import { common } from "./guard.ts";
import { TokenId, TokenWithUsageEnvelope } from "./schema.ts";

export function registerAdminTokensGet(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      ...common,
      method: "get",
      path: "/admin/v1/tokens/{id}",
      operationId: "admin_tokens_get",
      summary: "Show a token with its quota usage",
      description: "A token with its quota usage in the current UTC day and month. Needs `Authorization: Bearer <ADMIN_TOKEN>`.",
      request: { params: TokenId },
      responses: { 200: jsonContent(TokenWithUsageEnvelope, "Token"), ...errorResponses([400, 401, 404]) },
    }),
    async (c) => {
      return ok(c, await tokenWithUsage(callerOf(c), c.req.valid("param").id));
    },
  );
}
