// The account's outbound proxy toward the SII: stored per account, the password sealed at rest
// and never returned (only whether one is set). No HTTP here: the settings routes and every SII
// call (src/services/sii-context.ts) read it with the account they serve.
import { hostClass, ProxyFailure, parseProxyUrl } from "../lib/address-policy.ts";
import { open, seal } from "../lib/secret-box.ts";
import { ApiError } from "../platform/errors.ts";
import type { Deps } from "../ports/deps.ts";

export const PROXY_KEY = "proxy";
const SEAL_PURPOSE = "proxy-password";

export interface StoredProxy {
  enabled: boolean;
  url: string | null;
  username: string | null;
  password_box: string | null;
  updated_at: string | null;
}

export interface ProxyConfig {
  url: string;
  username: string | null;
  password: string | null;
}

export const NO_PROXY: StoredProxy = { enabled: false, url: null, username: null, password_box: null, updated_at: null };

export function proxyView(stored: StoredProxy) {
  return {
    enabled: stored.enabled,
    url: stored.url,
    username: stored.username,
    password_set: stored.password_box !== null,
    updated_at: stored.updated_at,
  };
}

export async function readProxy(deps: Deps, account: string): Promise<StoredProxy> {
  return (await deps.settings.get<StoredProxy>(account, PROXY_KEY)) ?? NO_PROXY;
}

export async function writeProxy(deps: Deps, account: string, stored: StoredProxy): Promise<void> {
  await deps.settings.put(account, PROXY_KEY, stored);
}

export function sealPassword(deps: Deps, password: string): Promise<string> {
  return seal(deps.config.secretKey, SEAL_PURPOSE, password);
}

/** The proxy to use for this account's SII calls, password opened; null when none is enabled. */
export async function activeProxy(deps: Deps, account: string): Promise<ProxyConfig | null> {
  const stored = await readProxy(deps, account);
  if (!stored.enabled || !stored.url) return null;
  const password = stored.password_box ? await open(deps.config.secretKey, SEAL_PURPOSE, stored.password_box) : null;
  if (stored.password_box && password === null) {
    throw new ApiError(500, "INTERNAL_ERROR", "The stored proxy password cannot be read (was SECRET_KEY changed?); set it again");
  }
  return { url: stored.url, username: stored.username, password };
}

/** Why a proxy URL is not acceptable, or null when it is. */
export function proxyUrlProblem(value: string, allowPrivate: boolean): string | null {
  const match = /^https?:\/\/(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})\/?$/.exec(value);
  if (!match) return "must be http://host:port or https://host:port, with no path and no credentials (use username and password)";
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return "has a port outside 1-65535";
  // Judged as the connecting code will parse it (`2130706433`, `0x7f.0.0.1`, `[::ffff:127.0.0.1]`
  // are loopback); names are judged again on every connection, after resolution.
  const parsed = parseProxyUrl(value);
  if (!parsed) return "must be http://host:port or https://host:port";
  const refused = allowPrivate ? null : hostClass(parsed.hostname);
  if (refused) return new ProxyFailure("not_allowed", refused).message;
  return null;
}
