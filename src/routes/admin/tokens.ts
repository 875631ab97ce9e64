// The operator's API for tokens: issue, list, show with usage, block, unblock, revoke.
// It exists only when ADMIN_TOKEN is set, and answers 404 otherwise.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { constantTimeEqual } from "../../lib/crypto.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { ApiError } from "../../platform/errors.ts";
import { usageView } from "../../platform/rate-headers.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { issueToken, publicToken } from "../../platform/tokens.ts";
import type { TokenRecord } from "../../ports.ts";
import { CreatedTokenEnvelope, TokenEnvelope, TokenId, TokenInput, TokenListEnvelope, TokenWithUsageEnvelope } from "./schema.ts";

export const adminGuard: MiddlewareHandler<AppEnv> = async (c, next) => {
  const secret = c.var.deps.config.adminToken;
  if (!secret) throw new ApiError(404, "HTTP_404", "Not found");
  const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "");
  if (!match?.[1] || !constantTimeEqual(match[1], secret)) {
    throw new ApiError(401, "HTTP_401", "Admin token missing or invalid: send Authorization: Bearer <ADMIN_TOKEN>");
  }
  await next();
};

const common = { tags: ["Admin"], security: [{ AdminToken: [] }] };
const base = "/admin/v1/tokens";

async function findToken(c: Context<AppEnv>, id: string): Promise<TokenRecord> {
  const record = await c.var.deps.tokens.getById(id);
  if (!record) throw new ApiError(404, "HTTP_404", `No token ${id}`);
  return record;
}

export function registerAdminTokens(app: OpenAPIHono<AppEnv>): void {
  app.use(`${base}`, adminGuard);
  app.use(`${base}/*`, adminGuard);

  app.openapi(
    createRoute({
      ...common,
      method: "post",
      path: base,
      operationId: "admin_tokens_create",
      summary: "Issue an API token (the secret is shown only in this answer)",
      request: { body: jsonBody(TokenInput) },
      responses: { 201: jsonContent(CreatedTokenEnvelope, "Token issued"), ...errorResponses([401, 404, 422]) },
    }),
    async (c) => {
      const input = c.req.valid("json");
      const { secret, record } = await issueToken(c.var.deps.tokens, input, c.var.deps.clock.now());
      return ok(c, { token: secret, ...publicToken(record) }, "Token issued; store the secret now, it is not shown again", 201);
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: "get",
      path: base,
      operationId: "admin_tokens_list",
      summary: "List tokens (never their secrets)",
      responses: { 200: jsonContent(TokenListEnvelope, "Tokens"), ...errorResponses([401, 404]) },
    }),
    async (c) => {
      const tokens = (await c.var.deps.tokens.list()).sort((a, b) => a.created_at.localeCompare(b.created_at));
      return ok(c, { tokens: tokens.map(publicToken) });
    },
  );

  app.openapi(
    createRoute({
      ...common,
      method: "get",
      path: `${base}/{id}`,
      operationId: "admin_tokens_get",
      summary: "Show a token with its quota usage",
      request: { params: TokenId },
      responses: { 200: jsonContent(TokenWithUsageEnvelope, "Token"), ...errorResponses([401, 404]) },
    }),
    async (c) => {
      const record = await findToken(c, c.req.valid("param").id);
      const state = await c.var.deps.quota.peek(record.id, record.plan, c.var.deps.clock.now());
      return ok(c, { ...publicToken(record), usage: usageView(state) });
    },
  );

  for (const [action, blocked] of [
    ["block", true],
    ["unblock", false],
  ] as const) {
    app.openapi(
      createRoute({
        ...common,
        method: "post",
        path: `${base}/{id}/${action}`,
        operationId: `admin_tokens_${action}`,
        summary: blocked ? "Block a token (its calls get 403 ACCOUNT_BLOCKED)" : "Unblock a token",
        request: { params: TokenId },
        responses: { 200: jsonContent(TokenEnvelope, "Token"), ...errorResponses([401, 404]) },
      }),
      async (c) => {
        const record = await findToken(c, c.req.valid("param").id);
        const updated = { ...record, blocked };
        await c.var.deps.tokens.put(updated);
        return ok(c, publicToken(updated), blocked ? "Token blocked" : "Token unblocked");
      },
    );
  }

  app.openapi(
    createRoute({
      ...common,
      method: "delete",
      path: `${base}/{id}`,
      operationId: "admin_tokens_revoke",
      summary: "Revoke a token for good",
      request: { params: TokenId },
      responses: { 200: jsonContent(TokenEnvelope, "Token revoked"), ...errorResponses([401, 404]) },
    }),
    async (c) => {
      const record = await findToken(c, c.req.valid("param").id);
      await c.var.deps.tokens.delete(record.id);
      return ok(c, publicToken(record), "Token revoked");
    },
  );
}
