// The OpenAPI document's `webhooks`: what the gateway POSTs to an account's endpoints, one entry per event
// type, with the Standard Webhooks 1.0 headers and the body (src/services/webhook-delivery.ts deliveryBody).
// Documentation only: nothing is served here.
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { EVENT_TYPES, type EventType } from "../../ports/jobs.ts";

const WHAT: Record<EventType, string> = {
  "dte_envio.processed": "A followed envelope got the SII's verdict: `estado`, `resultado` and the counts per document type",
  "dte_envio.rejected": "The SII rejected a followed envelope",
  "folios.low": "A folio ledger's free folios fell to its threshold",
  "folios.expiring": "A CAF of a folio ledger nears the end of its validity",
  "rcv_download.ready":
    "An RCV download's documents were fetched: `GET /api/v1/jobs/{job_id}/result` answers them for 24 hours (`registros`)",
  "rcv_download.failed":
    "An RCV download ended without its documents (`motivo`): the SII's request failed, or none finished in the job's life",
  "job.credentials_required": "The SII stopped honouring the token or session a job had: `POST /api/v1/jobs/{id}/resume` continues it",
  "job.failed": "A job ended without a verdict",
  "webhook.test": "`POST /api/v1/webhooks/endpoints/{id}/test`: sent to that endpoint alone",
  "webhook.endpoint_disabled": "Another endpoint of the account was disabled (410 Gone, or five days without a delivery)",
};

const DeliveryHeaders = z.object({
  "webhook-id": z.string().meta({ description: "The event's id: the same on every attempt and redelivery (deduplicate by it)" }),
  "webhook-timestamp": z.string().meta({ description: "The attempt's time, seconds since the epoch" }),
  "webhook-signature": z.string().meta({
    description: "`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`; two, space-separated, during a rotation",
  }),
});

const deliveryOf = (type: EventType) =>
  z.object({
    id: z.string().meta({ example: "evt_7h3j5k1l9p2o4i6u8y0t1r3e" }),
    type: z.literal(type),
    timestamp: z.string().meta({ description: "When the event was written (ISO 8601)" }),
    sequence: z.number().int().meta({ description: "The event's place in the account's feed" }),
    data: z.record(z.string(), z.unknown()).meta({ description: "Ids and outcomes, with `job_id`: never credentials, XML or rows" }),
  });

export function registerWebhookDeliveries(app: OpenAPIHono<AppEnv>): void {
  for (const type of EVENT_TYPES)
    app.openAPIRegistry.registerWebhook({
      method: "post",
      path: type,
      operationId: `webhook_${type.replace(".", "_")}`,
      // Not a security scheme of the receiver's: the delivery proves itself by its signature header.
      security: [],
      tags: ["Webhooks"],
      summary: WHAT[type],
      description:
        "Signed by Standard Webhooks 1.0 with the endpoint's secret (docs/webhooks.md). Answer a 2xx within 15 s; anything else is tried again.",
      request: {
        headers: DeliveryHeaders,
        body: { required: true, content: { "application/json": { schema: deliveryOf(type) } } },
      },
      responses: { 200: { description: "Delivered (any 2xx)" }, 410: { description: "Gone: the endpoint is disabled" } },
    });
}
