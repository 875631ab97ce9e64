// What guards the operator's token operations (issue, list, show with usage, block, unblock,
// revoke: src/services/tokens.ts): the API exists only when ADMIN_TOKEN is set, and answers 404
// otherwise; each operation declares the same tags and security (`common`).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { constantTimeEqual } from "../../lib/crypto.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ApiError } from "../../platform/errors.ts";

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

/** Guards every path under /admin/v1/tokens; registered before the operations. */
export function registerAdminGuard(app: OpenAPIHono<AppEnv>): void {
  app.use("/admin/v1/tokens", adminGuard);
  app.use("/admin/v1/tokens/*", adminGuard);
}
