// POST /admin/v1/tokens/{id}/unblock: lets a blocked token call again.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { registerBlocking } from "./blocking.ts";

export function registerAdminTokensUnblock(app: OpenAPIHono<AppEnv>): void {
  registerBlocking(app, "/admin/v1/tokens/{id}/unblock", false);
}
