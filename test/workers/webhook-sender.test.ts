// The Workers webhook sender in workerd, with an injected fetch: what it asks the platform for (POST,
// redirect manual, a deadline), how answers and failures come back, and the URL policy it applies
// before fetching (names are resolved by the platform, which does not reach its private addresses).
import { describe, expect, it } from "vitest";
import { createWorkerWebhookSender } from "../../src/adapters/cloudflare/webhook-sender.ts";
import { WEBHOOK_BOUNDS, type WebhookRequest } from "../../src/ports/webhooks.ts";

const headers = {
  "content-type": "application/json",
  "webhook-id": "msg_1",
  "webhook-timestamp": "1767225600",
  "webhook-signature": "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
};
const payload = JSON.stringify({ type: "envio.aceptado", data: { trackId: "42" } });
const request = (url = "https://hooks.example.cl/sii", allowLoopback = false): WebhookRequest => ({
  url,
  headers,
  body: payload,
  allowLoopback,
});

/** A fetch that records its calls and answers with `answer`. */
function fakeFetch(answer: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>) {
  const calls: { url: string; init: RequestInit | undefined }[] = [];
  const impl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    calls.push({ url: String(input), init });
    return answer(input, init);
  }) as typeof fetch;
  return { impl, calls };
}

describe("Workers webhook sender", () => {
  it("POSTs the headers and body with redirect manual and a deadline, and a 200 is answered", async () => {
    const { impl, calls } = fakeFetch(async () => new Response('{"ok":true}', { status: 200 }));
    const outcome = await createWorkerWebhookSender(impl).send(request());
    expect(outcome).toEqual({ state: "answered", status: 200, retryAfter: null, body: '{"ok":true}' });
    expect(calls).toHaveLength(1);
    const init = calls[0]?.init;
    expect(calls[0]?.url).toBe("https://hooks.example.cl/sii");
    expect(init?.method).toBe("POST");
    expect(init?.redirect).toBe("manual");
    expect(init?.headers).toEqual(headers);
    expect(init?.body).toBe(payload);
    expect(init?.signal).toBeInstanceOf(AbortSignal);
    expect(init?.signal?.aborted).toBe(false);
  });

  it("answers a 3xx without following it", async () => {
    const { impl, calls } = fakeFetch(
      async () => new Response(null, { status: 302, headers: { location: "https://elsewhere.example.cl/" } }),
    );
    expect(await createWorkerWebhookSender(impl).send(request())).toEqual({ state: "answered", status: 302, retryAfter: null, body: "" });
    expect(calls.map((c) => c.url)).toEqual(["https://hooks.example.cl/sii"]);
  });

  it("passes Retry-After on and cuts the body to the kept characters", async () => {
    const long = `${"ü".repeat(100)}${"y".repeat(1000)}`;
    const { impl } = fakeFetch(async () => new Response(long, { status: 503, headers: { "retry-after": "120" } }));
    expect(await createWorkerWebhookSender(impl).send(request())).toEqual({
      state: "answered",
      status: 503,
      retryAfter: "120",
      body: long.slice(0, WEBHOOK_BOUNDS.keptChars),
    });
  });

  it("reads at most 64 KiB of a 1 MiB answer and cancels the rest", async () => {
    const chunk = new Uint8Array(16 * 1024).fill(0x61);
    let pulled = 0;
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (pulled >= 1024 * 1024) return controller.close();
          pulled += chunk.byteLength;
          controller.enqueue(chunk);
        },
        cancel() {
          cancelled = true;
        },
      },
      { highWaterMark: 0 },
    );
    const { impl } = fakeFetch(async () => new Response(stream, { status: 200 }));
    const outcome = await createWorkerWebhookSender(impl).send(request());
    expect(outcome).toEqual({ state: "answered", status: 200, retryAfter: null, body: "a".repeat(WEBHOOK_BOUNDS.keptChars) });
    // The platform may read a little ahead of the reader; never the whole answer.
    expect(pulled).toBeLessThanOrEqual(4 * WEBHOOK_BOUNDS.readBytes);
    await new Promise((r) => setTimeout(r, 10));
    expect(cancelled).toBe(true);
  });

  it("keeps what arrived when the body breaks off after the status", async () => {
    let sent = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) return controller.error(new Error("Network connection lost."));
        sent = true;
        controller.enqueue(new TextEncoder().encode("partial"));
      },
    });
    const { impl } = fakeFetch(async () => new Response(stream, { status: 500 }));
    expect(await createWorkerWebhookSender(impl).send(request())).toEqual({
      state: "answered",
      status: 500,
      retryAfter: null,
      body: "partial",
    });
  });

  it("fails as timed out when the deadline passes", async () => {
    const { impl } = fakeFetch(
      (_input, init) =>
        new Promise<Response>((_, reject) => {
          init?.signal?.addEventListener("abort", () => reject(init.signal?.reason), { once: true });
        }),
    );
    const outcome = await createWorkerWebhookSender(impl, { totalMs: 50 }).send(request());
    expect(outcome).toEqual({ state: "failed", reason: "timed out after 0.05 s" });
  });

  it("maps fetch errors to failures and never throws", async () => {
    const cases: [unknown, string][] = [
      [new DOMException("The operation was aborted due to timeout", "TimeoutError"), "timed out after 15 s"],
      [new TypeError("Network connection lost."), "the delivery failed: Network connection lost."],
      [new Error("connect ECONNREFUSED: connection refused"), "the connection was refused"],
      [new Error("TLS handshake failed"), "TLS failed: TLS handshake failed"],
      ["not an error", "the delivery failed"],
    ];
    for (const [error, reason] of cases) {
      const impl = (() => Promise.reject(error)) as typeof fetch;
      expect(await createWorkerWebhookSender(impl).send(request())).toEqual({ state: "failed", reason });
    }
    const throwing = (() => {
      throw new TypeError("Invalid URL");
    }) as typeof fetch;
    expect(await createWorkerWebhookSender(throwing).send(request())).toEqual({
      state: "failed",
      reason: "the delivery failed: Invalid URL",
    });
  });

  it("refuses private, metadata and loopback literals before fetching", async () => {
    const { impl, calls } = fakeFetch(async () => new Response("should not be asked"));
    const sender = createWorkerWebhookSender(impl);
    const refused: [string, boolean, string][] = [
      ["https://10.0.0.1/hook", false, "private"],
      ["https://10.0.0.1/hook", true, "private"],
      ["https://192.168.1.1/hook", true, "private"],
      ["https://169.254.169.254/latest/meta-data", true, "cloud metadata"],
      ["https://[::ffff:169.254.169.254]/", true, "cloud metadata"],
      ["https://127.0.0.1/hook", false, "loopback"],
      ["https://[::ffff:127.0.0.1]/hook", false, "loopback"],
      ["https://2130706433/hook", false, "loopback"],
      ["https://hooks.internal/hook", true, "internal name"],
    ];
    for (const [url, allowLoopback, cls] of refused) {
      const reason = `the receiver's address is not allowed: ${cls}`;
      expect(await sender.check(url, allowLoopback)).toBe(reason);
      expect(await sender.send(request(url, allowLoopback))).toEqual({ state: "not_allowed", reason });
    }
    expect(await sender.send(request("http://hooks.example.cl/hook"))).toEqual({ state: "not_allowed", reason: "the URL must be https" });
    expect(calls).toHaveLength(0);
    expect(await sender.check("https://hooks.example.cl/hook", false)).toBeNull();
    expect(await sender.check("http://127.0.0.1:8787/hook", true)).toBeNull();
  });
});
