// POST /admin/v1/tokens: issues an API token; its secret is shown only in this answer.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { issueToken, publicToken } from "../../platform/tokens.ts";
import { common } from "./guard.ts";
import { CreatedTokenEnvelope, TokenInput } from "./schema.ts";

export function registerAdminTokensCreate(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      ...common,
      method: "post",
      path: "/admin/v1/tokens",
      operationId: "admin_tokens_create",
      summary: "Issue an API token (the secret is shown only in this answer)",
      description:
        "Issues an API token for an account with its scopes and quota plan. The secret (`X-API-Token`) is in this answer only; the gateway keeps just its hash. Needs `Authorization: Bearer <ADMIN_TOKEN>`; the admin API exists only when ADMIN_TOKEN is set (404 otherwise).",
      request: { body: jsonBody(TokenInput) },
      responses: { 201: jsonContent(CreatedTokenEnvelope, "Token issued"), ...errorResponses([401, 404, 422]) },
    }),
    async (c) => {
      const input = c.req.valid("json");
      const { secret, record } = await issueToken(c.get("deps").tokens, input, c.get("deps").clock.now());
      return ok(c, { token: secret, ...publicToken(record) }, "Token issued; store the secret now, it is not shown again", 201);
    },
  );
}
