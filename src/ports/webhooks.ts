// Interfaces only: the one outgoing request the gateway makes to a customer's server, a webhook delivery.
// Adapters: src/adapters/node/webhook-sender.ts (Node and Lambda: every address the name resolves to is
// checked, and the connection goes to the checked one) and src/adapters/cloudflare/webhook-sender.ts
// (Workers' fetch, which resolves by itself: names and literals are checked as the proxy's are).

/** One delivery attempt: a POST of `body` with the Standard Webhooks headers, to `url`. */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Sandbox mode: a receiver on loopback (127.0.0.0/8, ::1, localhost) is allowed, over http too. Never private or metadata addresses. */
  allowLoopback: boolean;
}

/**
 * What an attempt came to. `answered`: the receiver sent a status (a 3xx is an answer: redirects are not
 * followed); only a 2xx delivers. `failed`: no answer (the name did not resolve, the connection or TLS
 * failed, a bound was passed). `not_allowed`: the URL or an address its name resolved to is one the address
 * policy refuses; nothing was connected.
 */
export type WebhookOutcome =
  | { state: "answered"; status: number; retryAfter: string | null; body: string }
  | { state: "failed"; reason: string }
  | { state: "not_allowed"; reason: string };

export interface WebhookSender {
  /** Never throws: every failure is an outcome. */
  send(request: WebhookRequest): Promise<WebhookOutcome>;
  /** Checks `url` as `send` would before connecting (scheme, literal, name, every resolved address): null when allowed, else why not. */
  check(url: string, allowLoopback: boolean): Promise<string | null>;
}

/** Each attempt's bounds: the connection, the whole exchange, what is read of the answer, and what of it is kept. */
export const WEBHOOK_BOUNDS = {
  connectMs: 5_000,
  totalMs: 15_000,
  readBytes: 64 * 1024,
  keptChars: 512,
} as const;
