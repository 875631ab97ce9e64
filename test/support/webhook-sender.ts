// A WebhookSender for the tests' deps: it keeps every request and answers what the test sets (a 200 unless
// told otherwise), after the same URL check the real senders make. The real senders, over real sockets,
// have their own tests (test/node/webhook-sender.test.ts) and an end-to-end one with a loopback receiver.
import { webhookUrlProblem } from "../../src/lib/webhook-url.ts";
import type { WebhookOutcome, WebhookRequest, WebhookSender } from "../../src/ports/webhooks.ts";

export interface RecordingWebhookSender extends WebhookSender {
  sent: WebhookRequest[];
  /** What the next attempts are answered; replace it to make a receiver fail. */
  answer: (request: WebhookRequest) => WebhookOutcome | Promise<WebhookOutcome>;
}

export const delivered = (status = 200): WebhookOutcome => ({ state: "answered", status, retryAfter: null, body: "" });

export function recordingWebhookSender(): RecordingWebhookSender {
  const sender: RecordingWebhookSender = {
    sent: [],
    answer: () => delivered(),
    async send(request) {
      const problem = webhookUrlProblem(request.url, request.allowLoopback);
      if (problem) return { state: "not_allowed", reason: problem };
      sender.sent.push(request);
      return sender.answer(request);
    },
    async check(url, allowLoopback) {
      return webhookUrlProblem(url, allowLoopback);
    },
  };
  return sender;
}
