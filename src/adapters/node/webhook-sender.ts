// The webhook sender on Node (and Lambda): undici, one Agent per delivery whose connection goes to an
// address checked before connecting. Every address the receiver's name resolves to must be allowed, and
// the socket opens to one of those (no second resolution a rebinding DNS server could answer differently),
// as the proxy's connection does (./transport.ts `checkedProxyAddress`). Redirects are not followed: a 3xx
// is the receiver's answer (Standard Webhooks 1.0 counts only a 2xx as delivered).
import { lookup as dnsLookup } from "node:dns/promises";
import { Agent, buildConnector, request } from "undici";
import { addressProblem, webhookTarget, webhookUrlProblem } from "../../lib/webhook-url.ts";
import { WEBHOOK_BOUNDS, type WebhookOutcome, type WebhookRequest, type WebhookSender } from "../../ports/webhooks.ts";
import type { ResolveAll } from "./transport.ts";

export interface NodeWebhookSenderOptions {
  /** Name resolution, every address of the name (tests replace it). */
  resolveAll?: ResolveAll;
  /** The bound of the whole exchange (WEBHOOK_BOUNDS.totalMs unless a test shortens it). */
  totalMs?: number;
  /** The bound of the connection, TLS included (WEBHOOK_BOUNDS.connectMs unless a test shortens it). */
  connectMs?: number;
  /** Certificate authorities to trust besides the system's (tests). */
  ca?: string;
}

const defaultResolveAll: ResolveAll = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Where a delivery may connect: the addresses checked (a literal is its own), or why not, or why it could not be told. */
type Checked = { addresses: string[] } | { notAllowed: string } | { failed: string };

const NOT_RESOLVED = "the name did not resolve";

async function checkedAddresses(url: string, allowLoopback: boolean, resolveAll: ResolveAll): Promise<Checked> {
  const problem = webhookUrlProblem(url, allowLoopback);
  if (problem) return { notAllowed: problem };
  const target = webhookTarget(url);
  if (target.literal) return { addresses: [target.hostname] };
  let resolved: { address: string }[];
  try {
    resolved = await resolveAll(target.hostname);
  } catch {
    return { failed: NOT_RESOLVED };
  }
  if (resolved.length === 0) return { failed: NOT_RESOLVED };
  // One refused address refuses the name: a resolver may hand out any of them, now or on the next attempt.
  for (const { address } of resolved) {
    const refused = addressProblem(address, allowLoopback);
    if (refused) return { notAllowed: refused };
  }
  return { addresses: resolved.map((r) => r.address) };
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** The error and its causes (undici wraps socket errors; a failed happy-eyeballs attempt is an AggregateError). */
function errorChain(err: unknown): { code?: unknown; message?: unknown; name?: unknown }[] {
  const out: { code?: unknown; message?: unknown; name?: unknown }[] = [];
  const queue: unknown[] = [err];
  while (queue.length > 0 && out.length < 16) {
    const e = queue.shift();
    if (!e || typeof e !== "object") continue;
    out.push(e as { code?: unknown; message?: unknown; name?: unknown });
    const { cause, errors } = e as { cause?: unknown; errors?: unknown };
    if (cause) queue.push(cause);
    if (Array.isArray(errors)) queue.push(...errors);
  }
  return out;
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_|HOSTNAME_MISMATCH|ERR_OSSL)/;

/** A delivery error in plain words. The receiver is the account's own public server: its TLS words may be shown. */
function failureReason(err: unknown, timedOut: boolean, totalMs: number, connectMs: number): string {
  if (timedOut) return `timed out after ${seconds(totalMs)}`;
  const chain = errorChain(err);
  const codes = chain.map((e) => (typeof e.code === "string" ? e.code : ""));
  const tls = chain.find((e) => typeof e.code === "string" && TLS_CODE.test(e.code));
  if (tls) return `TLS failed: ${typeof tls.message === "string" ? tls.message : String(tls.code)}`;
  if (codes.includes("ECONNREFUSED")) return "the connection was refused";
  if (codes.includes("UND_ERR_CONNECT_TIMEOUT") || codes.includes("ETIMEDOUT"))
    return `the connection timed out after ${seconds(connectMs)}`;
  if (codes.includes("ENOTFOUND") || codes.includes("EAI_AGAIN")) return NOT_RESOLVED;
  if (codes.some((c) => c === "EHOSTUNREACH" || c === "ENETUNREACH")) return "the receiver could not be reached";
  if (codes.some((c) => c.startsWith("HPE_")) || chain.some((e) => e.name === "HTTPParserError"))
    return "the receiver answered something other than HTTP";
  if (codes.some((c) => c === "ECONNRESET" || c === "UND_ERR_SOCKET" || c === "EPIPE")) return "the connection was closed before an answer";
  const code = codes.find((c) => c !== "");
  return code ? `the delivery failed (${code})` : "the delivery failed";
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? (value[0] ?? null) : value;
}

/** At most WEBHOOK_BOUNDS.readBytes of the answer, as UTF-8, cut to the characters kept; the rest is never read. */
async function boundedText(body: AsyncIterable<Uint8Array> & { destroy(): unknown }): Promise<string> {
  const chunks: Uint8Array[] = [];
  let read = 0;
  try {
    for await (const chunk of body) {
      const room = WEBHOOK_BOUNDS.readBytes - read;
      chunks.push(chunk.byteLength > room ? chunk.subarray(0, room) : chunk);
      read += Math.min(chunk.byteLength, room);
      if (read >= WEBHOOK_BOUNDS.readBytes) break;
    }
  } catch {
    // The body broke off (the bound, a reset): the status already answered; keep what arrived.
  } finally {
    body.destroy();
  }
  return keptText(chunks, read);
}

function keptText(chunks: Uint8Array[], length: number): string {
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  // By code points, so a cut never leaves half a surrogate pair.
  return Array.from(new TextDecoder("utf-8").decode(bytes)).slice(0, WEBHOOK_BOUNDS.keptChars).join("");
}

export function createNodeWebhookSender(options: NodeWebhookSenderOptions = {}): WebhookSender {
  const resolveAll = options.resolveAll ?? defaultResolveAll;
  const totalMs = options.totalMs ?? WEBHOOK_BOUNDS.totalMs;
  const connectMs = options.connectMs ?? WEBHOOK_BOUNDS.connectMs;
  const connect = buildConnector({ timeout: connectMs, ...(options.ca ? { ca: options.ca } : {}) });

  /** A connector to the checked addresses only, in the resolver's order; the URL's name stays the TLS server name. */
  const connectorTo =
    (addresses: string[], hostname: string, literal: boolean): buildConnector.connector =>
    (opts, callback) => {
      const attempt = (index: number, lastError: Error | null) => {
        const address = addresses[index];
        if (address === undefined) {
          callback(lastError ?? new Error("no address to connect to"), null);
          return;
        }
        // SNI carries a name, never an IP literal (RFC 6066 §3): with `host` an address, undici sets none of its own.
        const servername = opts.protocol === "https:" && !literal ? hostname : undefined;
        connect({ ...opts, hostname: address, host: address, servername }, (err, socket) => {
          // A refused address may be followed by the next one the name has: every one was checked.
          if (err) attempt(index + 1, err);
          else callback(null, socket as NonNullable<typeof socket>);
        });
      };
      attempt(0, null);
    };

  return {
    async check(url, allowLoopback) {
      const checked = await checkedAddresses(url, allowLoopback, resolveAll);
      // A name that does not resolve yet (DNS being set up) is accepted: there is no address to refuse, and
      // every attempt resolves and checks again (an attempt then fails, and is retried).
      return "notAllowed" in checked ? checked.notAllowed : null;
    },

    async send(req: WebhookRequest): Promise<WebhookOutcome> {
      const signal = AbortSignal.timeout(totalMs);
      let agent: Agent | null = null;
      try {
        const timedOut = new Promise<never>((_, reject) => {
          signal.addEventListener("abort", () => reject(signal.reason), { once: true });
        });
        timedOut.catch(() => {});
        // The resolution counts toward the whole exchange's bound too.
        const checked = await Promise.race([checkedAddresses(req.url, req.allowLoopback, resolveAll), timedOut]);
        if ("notAllowed" in checked) return { state: "not_allowed", reason: checked.notAllowed };
        if ("failed" in checked) return { state: "failed", reason: checked.failed };
        const target = webhookTarget(req.url);
        agent = new Agent({ connect: connectorTo(checked.addresses, target.hostname, target.literal) });
        // undici's request follows no redirects (that takes its redirect interceptor): a 3xx comes back as is.
        const res = await request(req.url, {
          method: "POST",
          headers: req.headers,
          body: req.body,
          signal,
          dispatcher: agent,
          headersTimeout: totalMs,
          bodyTimeout: totalMs,
        });
        const body = await boundedText(res.body);
        return { state: "answered", status: res.statusCode, retryAfter: headerValue(res.headers["retry-after"]), body };
      } catch (err) {
        return { state: "failed", reason: failureReason(err, signal.aborted, totalMs, connectMs) };
      } finally {
        // destroy, not close: whatever is left of the answer is not wanted.
        if (agent) await agent.destroy().catch(() => {});
      }
    },
  };
}
