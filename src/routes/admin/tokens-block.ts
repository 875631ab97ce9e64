// POST /admin/v1/tokens/{id}/block: blocks a token (its calls get 403 ACCOUNT_BLOCKED).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { registerBlocking } from "./blocking.ts";

export function registerAdminTokensBlock(app: OpenAPIHono<AppEnv>): void {
  registerBlocking(app, "/admin/v1/tokens/{id}/block", true);
}
