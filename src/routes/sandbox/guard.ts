// What guards the simulator's controls (faults, call counts, recorded answers: src/services/sandbox-controls.ts).
// They change state every caller shares, so off loopback they take the development token
// (DEV_API_TOKEN, as X-API-Token or Bearer) or the operator's ADMIN_TOKEN (Bearer); on loopback
// (tests, `npm run dev`) no token. Each operation declares the same tags, security and description.
import type { Context, MiddlewareHandler } from "hono";
import { isLoopbackHost } from "../../lib/address-policy.ts";
import { constantTimeEqual } from "../../lib/crypto.ts";
import { presentedToken } from "../../platform/auth.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ApiError } from "../../platform/errors.ts";

export const tags = ["Sandbox"];
/**
 * No token from loopback (the empty requirement: anonymous), otherwise either token. OpenAPI
 * cannot say where a caller is, so the description does.
 */
export const security: Record<string, string[]>[] = [{}, { ApiToken: [] }, { AdminToken: [] }];
export const description =
  "No token from loopback (tests, `npm run dev`); otherwise the development token (`DEV_API_TOKEN`, as `X-API-Token` or " +
  "`Authorization: Bearer`) or the operator's `ADMIN_TOKEN` (`Authorization: Bearer`), and 401 without one.";

/** What a runtime tells about the connection, when it does (c.env). */
interface PeerEnv {
  /** @hono/node-server: the Node request. */
  incoming?: { socket?: { remoteAddress?: string } };
  /** hono/aws-lambda: the API Gateway event. */
  event?: { requestContext?: { http?: { sourceIp?: string }; identity?: { sourceIp?: string } } };
}

const LOOPBACK_ADDRESS = /^(?:127(?:\.\d{1,3}){3}|::1|::ffff:127(?:\.\d{1,3}){3})$/;

/**
 * Whether the caller is on this machine. Node and Lambda name the peer's address and that
 * decides; a request that came through a proxy (forwarding headers) is never local, since the
 * proxy's own address is loopback whoever sent it. Workers name no peer: the URL's host decides,
 * which is loopback only under `wrangler dev` (a deployed Worker is reached by its own host name),
 * as for the SECRET_KEY check in src/entry/worker.ts; so are in-process calls (`app.request`).
 */
export function fromLoopback(c: Context): boolean {
  const headers = c.req.raw.headers;
  if (headers.has("forwarded") || headers.has("x-forwarded-for") || headers.has("x-real-ip")) return false;
  const env = c.env as PeerEnv | undefined;
  const peer =
    env?.incoming?.socket?.remoteAddress ?? env?.event?.requestContext?.http?.sourceIp ?? env?.event?.requestContext?.identity?.sourceIp;
  if (peer !== undefined) return LOOPBACK_ADDRESS.test(peer);
  if (env?.incoming || env?.event) return false;
  return isLoopbackHost(new URL(c.req.url).hostname);
}

/** Off loopback: the development token or the admin token, compared in constant time. */
export const controlGuard: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!fromLoopback(c)) {
    const { devToken, adminToken } = c.get("deps").config;
    const presented = presentedToken(c);
    const allowed = presented !== null && [devToken, adminToken].some((secret) => secret && constantTimeEqual(presented, secret));
    if (!allowed) {
      throw new ApiError(401, "HTTP_401", "The sandbox controls need the development token or the admin token from outside this machine");
    }
  }
  await next();
};
