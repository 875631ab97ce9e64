// DELETE /admin/v1/tokens/{id}: revokes a token for good.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { errorResponses, jsonContent } from "../../platform/schemas.ts";
import { revokeToken } from "../../services/tokens.ts";
import { common } from "./guard.ts";
import { TokenEnvelope, TokenId } from "./schema.ts";

export function registerAdminTokensRevoke(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      ...common,
      method: "delete",
      path: "/admin/v1/tokens/{id}",
      operationId: "admin_tokens_revoke",
      summary: "Revoke a token for good",
      description:
        "Deletes the token: its secret stops working at once and cannot be restored. Needs `Authorization: Bearer <ADMIN_TOKEN>`.",
      request: { params: TokenId },
      responses: { 200: jsonContent(TokenEnvelope, "Token revoked"), ...errorResponses([400, 401, 404]) },
    }),
    async (c) => {
      return ok(c, await revokeToken(callerOf(c), c.req.valid("param").id), "Token revoked");
    },
  );
}
