// Where a webhook may be delivered: HTTPS to a public address, as the proxy's address policy
// (./address-policy.ts) says public. In sandbox mode a receiver on this machine (loopback, over http
// or https) is allowed too, as `stripe listen` is; private, link-local and metadata addresses never.
// Runtime-neutral: both senders check with these before connecting (the Node one also every resolved address).
import { addressClass, hostClass, isIpLiteral } from "./address-policy.ts";

/** A URL longer than this is refused: it is stored with the endpoint and sent nowhere else. */
export const WEBHOOK_URL_MAX = 2048;

/** Why `address` (an IP literal, as a resolver answers) may not be connected to, or null. */
export function addressProblem(address: string, allowLoopback: boolean): string | null {
  const refused = addressClass(address);
  if (refused === null || (refused === "loopback" && allowLoopback)) return null;
  return `the receiver's address is not allowed: ${refused}`;
}

/** Why `value` is not a URL a webhook may be delivered to (before any resolution), or null. */
export function webhookUrlProblem(value: string, allowLoopback: boolean): string | null {
  if (value.length > WEBHOOK_URL_MAX) return `the URL is longer than ${WEBHOOK_URL_MAX} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "not an absolute URL";
  }
  if (url.username || url.password) return "a URL with a user or password is not accepted: sign the deliveries instead";
  if (url.hash) return "a URL with a fragment (#) is not accepted";
  const refused = hostClass(url.hostname);
  const loopback = refused === "loopback";
  if (refused && !(loopback && allowLoopback)) return `the receiver's address is not allowed: ${refused}`;
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && loopback && allowLoopback) return null;
  return allowLoopback ? "the URL must be https (http only to loopback in sandbox mode)" : "the URL must be https";
}

/** The hostname to resolve (null for an IP literal, which needs no resolution) and the port. */
export function webhookTarget(value: string): { hostname: string; literal: boolean; port: number; https: boolean } {
  const url = new URL(value);
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  const https = url.protocol === "https:";
  return { hostname, literal: isIpLiteral(hostname), port: url.port ? Number(url.port) : https ? 443 : 80, https };
}
