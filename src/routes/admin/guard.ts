// What the operator's token operations share (issue, list, show with usage, block, unblock,
// revoke: one file each): the API exists only when ADMIN_TOKEN is set, and answers 404 otherwise.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { constantTimeEqual } from "../../lib/crypto.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { ApiError } from "../../platform/errors.ts";
import { errorResponses, jsonContent } from "../../platform/schemas.ts";
import { publicToken } from "../../platform/tokens.ts";
import type { TokenRecord } from "../../ports.ts";
import { TokenEnvelope, TokenId } from "./schema.ts";

export const adminGuard: MiddlewareHandler<AppEnv> = async (c, next) => {
  const secret = c.get("deps").config.adminToken;
  if (!secret) throw new ApiError(404, "HTTP_404", "Not found");
  const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "");
  if (!match?.[1] || !constantTimeEqual(match[1], secret)) {
    throw new ApiError(401, "HTTP_401", "Admin token missing or invalid: send Authorization: Bearer <ADMIN_TOKEN>");
  }
  await next();
};

export const common = { tags: ["Admin"], security: [{ AdminToken: [] }] };

export async function findToken(c: Context<AppEnv>, id: string): Promise<TokenRecord> {
  const record = await c.get("deps").tokens.getById(id);
  if (!record) throw new ApiError(404, "HTTP_404", `No token ${id}`);
  return record;
}

/** Guards every path under /admin/v1/tokens; registered before the operations. */
export function registerAdminGuard(app: OpenAPIHono<AppEnv>): void {
  app.use("/admin/v1/tokens", adminGuard);
  app.use("/admin/v1/tokens/*", adminGuard);
}

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
      const record = await findToken(c, c.req.valid("param").id);
      const updated = { ...record, blocked };
      await c.get("deps").tokens.put(updated);
      return ok(c, publicToken(updated), blocked ? "Token blocked" : "Token unblocked");
    },
  );
}
