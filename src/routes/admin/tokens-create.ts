// POST /admin/v1/tokens: issues an API token; its secret is shown only in this answer.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { strictBody } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { createToken } from "../../services/tokens.ts";
import { common } from "./guard.ts";
import { CreatedTokenEnvelope, TokenInput } from "./schema.ts";

export function registerAdminTokensCreate(app: OpenAPIHono<AppEnv>): void {
  const route = createRoute({
    ...common,
    method: "post",
    path: "/admin/v1/tokens",
    operationId: "admin_tokens_create",
    summary: "Issue an API token (the secret is shown only in this answer)",
    description:
      "Issues an API token for an account with its scopes and quota plan. The secret (`X-API-Token`) is in this answer only; the gateway keeps just its hash. Needs `Authorization: Bearer <ADMIN_TOKEN>`; the admin API exists only when ADMIN_TOKEN is set (404 otherwise).",
    request: { body: jsonBody(TokenInput) },
    responses: { 201: jsonContent(CreatedTokenEnvelope, "Token issued"), ...errorResponses([401, 404, 422]) },
  });
  app.openapi(
    route,
    async (c) => {
      const token = await createToken(callerOf(c), c.req.valid("json"));
      return ok(c, token, "Token issued; store the secret now, it is not shown again", 201);
    },
    strictBody(route),
  );
}
