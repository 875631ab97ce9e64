// The egress protocol: a Worker cannot present a per-request TLS client certificate nor use an
// HTTP proxy, so it hands such SII calls to the Node entry's egress endpoint. Requests and answers
// are sealed with EGRESS_SECRET (AES-GCM: secret, authenticated), timestamped and single-use, and
// the egress only ever calls SII hosts. A signed header lets the egress refuse strangers before
// it reads a byte of the body, and the body is read against a limit while it streams.
import { constantTimeEqual, randomHex } from "../lib/crypto.ts";
import { base64ToBytes, bytesToBase64 } from "../lib/encoding.ts";
import { keyedHash, open, seal } from "../lib/secret-box.ts";
import type { TransportOptions } from "../ports/transport.ts";

export const EGRESS_PATH = "/egress/v1/fetch";
const PURPOSE = "egress";
/** How far a request's timestamp may be from the egress's clock. */
export const EGRESS_WINDOW_MS = 60_000;

interface EgressRequest {
  ts: number;
  nonce: string;
  url: string;
  method: string;
  headers: [string, string][];
  body: string | null;
  options: TransportOptions;
}

interface EgressAnswer {
  status: number;
  headers: [string, string][];
  body: string;
}

/** Carries `<ms timestamp>.<HMAC-SHA-256 of it under EGRESS_SECRET>`: checked before the body is read. */
export const EGRESS_AUTH_HEADER = "x-egress-auth";
/** On a 502 from the egress: the proxy failure, in the gateway's words (`ProxyFailure.wireCode`). */
export const EGRESS_PROXY_FAILURE_HEADER = "x-egress-proxy-failure";

export async function egressAuth(secret: string, now: number): Promise<string> {
  return `${now}.${await keyedHash(secret, `egress-auth\n${now}`)}`;
}

/** Whether the header was made with this secret within the freshness window. */
export async function egressAuthValid(secret: string, header: string | null, now: number): Promise<boolean> {
  const match = /^(\d{1,15})\.([0-9a-f]{64})$/.exec(header ?? "");
  if (!match) return false;
  const ts = Number(match[1]);
  if (Math.abs(now - ts) > EGRESS_WINDOW_MS) return false;
  return constantTimeEqual(await keyedHash(secret, `egress-auth\n${ts}`), match[2] ?? "");
}

/**
 * The largest sealed request the egress reads: an SII request body of `maxBodyBytes` is base64 in
 * the JSON (4/3) and the sealed JSON is base64 again (4/3), plus headers, certificate and key.
 */
export function egressBodyLimit(maxBodyBytes: number): number {
  return Math.ceil((maxBodyBytes * 16) / 9) + 256 * 1024;
}

/** The body as text, or null as soon as it passes `limit` bytes (the rest is never read). */
export async function readBodyWithin(body: ReadableStream<Uint8Array> | null, limit: number): Promise<string | null> {
  if (!body) return "";
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    text += decoder.decode(value, { stream: true });
  }
}

/** Only the SII's own hosts, over HTTPS: the egress is never an open relay. */
export function isSiiUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" && (parsed.hostname === "sii.cl" || parsed.hostname.endsWith(".sii.cl"));
  } catch {
    return false;
  }
}

/** Worker side: seal a request for the egress. */
export async function sealEgressRequest(secret: string, request: Request, options: TransportOptions, now: number): Promise<string> {
  const payload: EgressRequest = {
    ts: now,
    nonce: randomHex(16),
    url: request.url,
    method: request.method,
    headers: [...request.headers],
    body: request.body ? bytesToBase64(new Uint8Array(await request.arrayBuffer())) : null,
    options,
  };
  return seal(secret, PURPOSE, JSON.stringify(payload));
}

export type EgressOpened = { ok: true; request: Request; options: TransportOptions } | { ok: false; status: 400 | 401; reason: string };

/** Egress side: open, check freshness and single use, and rebuild the request. */
export async function openEgressRequest(secret: string, sealed: string, now: number, seen: Map<string, number>): Promise<EgressOpened> {
  const text = await open(secret, PURPOSE, sealed.trim());
  if (!text) return { ok: false, status: 401, reason: "not sealed with this EGRESS_SECRET" };
  const payload = JSON.parse(text) as EgressRequest;
  if (Math.abs(now - payload.ts) > EGRESS_WINDOW_MS) return { ok: false, status: 401, reason: "too old or from the future" };
  for (const [nonce, at] of seen) if (at < now - 2 * EGRESS_WINDOW_MS) seen.delete(nonce);
  if (seen.has(payload.nonce)) return { ok: false, status: 401, reason: "replayed" };
  seen.set(payload.nonce, now);
  if (!isSiiUrl(payload.url)) return { ok: false, status: 400, reason: "only https://*.sii.cl may be called" };
  const request = new Request(payload.url, {
    method: payload.method,
    headers: payload.headers,
    body: payload.body === null ? undefined : base64ToBytes(payload.body),
    redirect: "manual",
  });
  return { ok: true, request, options: payload.options };
}

export async function sealEgressAnswer(secret: string, res: Response): Promise<string> {
  const answer: EgressAnswer = {
    status: res.status,
    headers: [...res.headers],
    body: bytesToBase64(new Uint8Array(await res.arrayBuffer())),
  };
  return seal(secret, PURPOSE, JSON.stringify(answer));
}

export async function openEgressAnswer(secret: string, sealed: string): Promise<Response | null> {
  const text = await open(secret, PURPOSE, sealed.trim());
  if (!text) return null;
  const answer = JSON.parse(text) as EgressAnswer;
  const noBody = answer.status === 204 || answer.status === 304;
  return new Response(noBody ? null : base64ToBytes(answer.body), { status: answer.status, headers: answer.headers });
}
