// The account's settings operations, with no HTTP: its outbound proxy toward the SII read, replaced
// (the address judged by the operator's policy, the password sealed; src/services/proxy-settings.ts
// keeps it) and tried: the SII host of an ambiente reached through it.
//
// The proxy's address is the caller's, so whatever tells one failure from another (a closed
// port, a refused or filtered one, a service that is no proxy, a timeout) would make the test a port
// scanner: every failure before the SII answered is one message, with no latency. Only the
// address policy's refusal keeps its words: it is decided from the address the caller gave.
import { ADDRESS_CLASSES, PROXY_NOT_ALLOWED } from "../lib/address-policy.ts";
import type { Caller } from "../platform/caller.ts";
import { ApiError, type FieldError } from "../platform/errors.ts";
import { type Ambiente, siiHosts } from "../sii/hosts.ts";
import { siiFetch } from "../sii/http.ts";
import { proxyUrlProblem, proxyView, readProxy, sealPassword, writeProxy } from "./proxy-settings.ts";
import { siiServicesFor } from "./sii-context.ts";

/** The account's proxy configuration, password never shown (defaults when never set). */
export async function proxySettings(caller: Caller) {
  return proxyView(await readProxy(caller.deps, caller.account()));
}

/** A proxy configuration as the caller writes it: a `password` left out keeps the stored one, `null` removes it. */
export interface ProxyInput {
  enabled: boolean;
  url?: string | null;
  username?: string | null;
  password?: string | null;
}

/** Replaces the account's proxy configuration and answers what is stored, password never shown. */
export async function replaceProxySettings(caller: Caller, input: ProxyInput) {
  const { deps } = caller;
  // The form and the rules between fields are the schema's; whether the address may be used
  // depends on the operator's policy (ALLOW_PRIVATE_PROXY): a business rule checked here, 400.
  const url = input.url ?? null;
  const problem = url === null ? null : proxyUrlProblem(url, deps.config.allowPrivateProxy);
  if (problem) {
    const errors: FieldError[] = [{ path: "url", location: "body", message: problem }];
    throw new ApiError(400, "VALIDATION_ERROR", "The request breaks a rule: url", { errors });
  }

  const previous = await readProxy(deps, caller.account());
  const password_box =
    input.password === undefined ? previous.password_box : input.password === null ? null : await sealPassword(deps, input.password);
  const stored = {
    enabled: input.enabled,
    url: url?.replace(/\/$/, "") ?? null,
    username: input.username ?? null,
    password_box,
    updated_at: deps.clock.now().toISOString(),
  };
  await writeProxy(deps, caller.account(), stored);
  return proxyView(stored);
}

/** The one answer for a proxy through which the SII did not answer, whatever the reason. */
export const UNREACHED = "the SII could not be reached through the proxy";

/**
 * What a failed test tells the caller: the address policy's refusal in its own words, the SII's
 * status when the SII itself answered, and otherwise `UNREACHED` (never the transport's text).
 */
export function failureOf(err: ApiError): { error: string; status: number | null } {
  const details = err.init.details ?? {};
  const reason = String(details.reason ?? "");
  const refused = ADDRESS_CLASSES.find((cls) => reason.includes(`${PROXY_NOT_ALLOWED}${cls}`));
  if (refused) return { error: `${PROXY_NOT_ALLOWED}${refused}`, status: null };
  if (typeof details.sii_status === "number") return { error: err.message, status: details.sii_status };
  // The operator's setup, not the proxy's host: say what is missing.
  if (err.code === "NOT_IMPLEMENTED") return { error: err.message, status: null };
  return { error: UNREACHED, status: null };
}

/**
 * Fetches the SII's seed service description of `ambiente` through the account's enabled proxy
 * (15 s limit) and reports what happened; 400 when the account has no enabled proxy.
 */
export async function testProxy(caller: Caller, ambiente: Ambiente) {
  const { ctx } = await siiServicesFor(caller);
  if (!ctx.proxy) throw new ApiError(400, "VALIDATION_ERROR", "No proxy is enabled for this account: PUT /api/v1/settings/proxy first");
  const target = `https://${siiHosts(ambiente).dte}`;
  const started = performance.now();
  let status: number | null = null;
  let error: string | null = null;
  try {
    status = (
      await siiFetch({ ...ctx, timeoutMs: 15_000 }, new Request(`${target}/DTEWS/CrSeed.jws?WSDL`), {
        service: "proxy_test",
        read: false,
      })
    ).status;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    ({ error, status } = failureOf(err));
  }
  return {
    reachable: error === null,
    target,
    proxy: ctx.proxy.url,
    latency_ms: status === null ? null : Math.round(performance.now() - started),
    sii_status: status,
    error,
    upstream: caller.deps.sii.mode,
  };
}
