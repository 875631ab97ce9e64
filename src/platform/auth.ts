// API-token authentication and scope checks.
import type { Context, MiddlewareHandler } from "hono";
import { sha256Hex } from "../lib/crypto.ts";
import type { Scope } from "../ports/access.ts";
import type { AppEnv } from "./context.ts";
import { ApiError } from "./errors.ts";

/** `X-API-Token: t`, or `Authorization: Bearer t` / `Token t` as other gateways' SDKs send it. */
export function presentedToken(c: Context): string | null {
  const header = c.req.header("x-api-token")?.trim();
  if (header) return header;
  const match = /^(?:Bearer|Token)\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "");
  return match?.[1] ?? null;
}

export const authenticate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = presentedToken(c);
  if (!token) throw new ApiError(401, "HTTP_401", "API token missing: send it in the X-API-Token header");
  const record = await c.get("deps").tokens.getByHash(await sha256Hex(token));
  if (!record) throw new ApiError(401, "HTTP_401", "API token invalid or revoked");
  c.set("principal", { tokenId: record.id, account: record.account, scopes: record.scopes, plan: record.plan });
  if (record.blocked) throw new ApiError(403, "ACCOUNT_BLOCKED", "This API token is blocked; contact the gateway operator");
  await next();
};

export function requireScope(scope: Scope | null): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const principal = c.get("principal");
    if (!principal) throw new ApiError(401, "HTTP_401", "API token missing: send it in the X-API-Token header");
    if (scope && !principal.scopes.includes(scope)) {
      throw new ApiError(403, "INSUFFICIENT_SCOPE", `This operation needs the scope ${scope}`, {
        details: { required_scope: scope, token_scopes: principal.scopes },
      });
    }
    await next();
  };
}
