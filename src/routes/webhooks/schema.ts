// The shapes of the webhook operations: an endpoint, its creation and change, a rotation, a test, a redelivery.
import { z } from "@hono/zod-openapi";
import { WEBHOOK_URL_MAX } from "../../lib/webhook-url.ts";
import { envelope, pathParams } from "../../platform/schemas.ts";
import { EVENT_TYPES, type EventType } from "../../ports/jobs.ts";
import { Event, Id } from "../job-schema.ts";

export const ENDPOINT_EXAMPLE_ID = "we_8f2k4m6q1s3u5w7y9a0c2e4g";
export const EndpointParams = pathParams({ id: Id("we", ENDPOINT_EXAMPLE_ID).meta({ description: "The endpoint's id" }) });
export const EventParams = pathParams({ id: Id("evt", "evt_7h3j5k1l9p2o4i6u8y0t1r3e").meta({ description: "The event's id" }) });

/** What an endpoint may subscribe to: every type but `webhook.test`, which goes to the endpoint tested and nowhere else. */
const SUBSCRIBABLE = EVENT_TYPES.filter((type): type is Exclude<EventType, "webhook.test"> => type !== "webhook.test");

const Url = z
  .string()
  .max(WEBHOOK_URL_MAX, { error: `must be at most ${WEBHOOK_URL_MAX} characters` })
  .register(z.globalRegistry, {
    example: "https://erp.example.cl/hooks/sii",
    description:
      "Where deliveries are POSTed: https to a public address (every address its name resolves to is checked, at registration and at each attempt). In sandbox mode http and https to loopback (127.0.0.1, [::1], localhost) are allowed too",
  });
const Eventos = z
  .array(z.enum(SUBSCRIBABLE, { error: `must be one of ${SUBSCRIBABLE.join(", ")}` }))
  .min(1, { error: "must name at least one event type, or be null for all" })
  .max(SUBSCRIBABLE.length * 4)
  // A type named twice is the same subscription.
  .transform((types) => [...new Set(types)])
  .nullable()
  .meta({ description: "The event types it receives; null (or omitted at creation): every type" });
const Descripcion = z
  .string()
  .max(200, { error: "must be at most 200 characters" })
  .nullable()
  .register(z.globalRegistry, { example: "ERP de producción", description: "The account's own words for it" });

export const EndpointInput = z
  .strictObject({ url: Url, eventos: Eventos.default(null), descripcion: Descripcion.default(null) })
  .openapi("WebhookEndpointInput");

export const EndpointPatch = z
  .strictObject({
    url: Url.optional(),
    eventos: Eventos.optional(),
    descripcion: Descripcion.optional(),
    activo: z.boolean().optional().register(z.globalRegistry, {
      description: "true enables a disabled endpoint (it goes on from the event where it stopped); false disables it",
    }),
  })
  .refine((patch) => Object.keys(patch).length > 0, { error: "must change at least one of url, eventos, descripcion, activo" })
  .openapi("WebhookEndpointPatch", { example: { eventos: ["dte_envio.processed", "dte_envio.rejected"], activo: true } });

const iso = () => z.string().nullable();

export const Endpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    eventos: z.array(z.enum(SUBSCRIBABLE)).nullable(),
    descripcion: z.string().nullable(),
    activo: z.boolean(),
    motivo_desactivacion: z.string().nullable().register(z.globalRegistry, {
      description: "Why it is disabled (410 Gone, five days without a delivery, the account's PATCH); null while active",
    }),
    entrega: z.object({
      last_sequence: z.number().int().register(z.globalRegistry, { description: "The feed's last sequence it has handled" }),
      reintentos: z.number().int().register(z.globalRegistry, { description: "Events waiting for another attempt (at most 100)" }),
      entregados: z.number().int(),
      abandonados: z.number().int().register(z.globalRegistry, { description: "Events given up after the 10th attempt" }),
      fallando_desde: iso().meta({ description: "Since when every attempt failed; null after a delivery" }),
      ultimo_intento: z
        .object({
          at: z.string(),
          event_id: z.string(),
          status: z.number().int().nullable(),
          entregado: z.boolean(),
          error: z.string().nullable(),
        })
        .nullable(),
      next_run_at: iso(),
    }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("WebhookEndpoint");

const Secreto = z.string().register(z.globalRegistry, {
  example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw1bTSPgJ1UW0=",
  description: "The signing secret (Standard Webhooks 1.0): shown here once, never again",
});

export const EndpointEnvelope = envelope(Endpoint);
export const EndpointCreated = envelope(z.object({ endpoint: Endpoint, secreto: Secreto }).openapi("WebhookEndpointCreated"));
export const EndpointsPage = envelope(z.object({ endpoints: z.array(Endpoint) }).openapi("WebhookEndpoints"));
export const SecretRotated = envelope(
  z
    .object({
      endpoint: Endpoint,
      secreto: Secreto,
      anterior_firma_hasta: iso().meta({ description: "Until when the old secret signs too (24 hours)" }),
    })
    .openapi("WebhookSecretRotated"),
);
export const EndpointDeleted = envelope(z.object({ id: z.string(), eliminado: z.literal(true) }).openapi("WebhookEndpointDeleted"));
export const EndpointTested = envelope(z.object({ event: Event, endpoint: Endpoint }).openapi("WebhookEndpointTested"));

export const RedeliverInput = z
  .strictObject({
    endpoint_id: Id("we", ENDPOINT_EXAMPLE_ID).optional().meta({
      description: "Only to this endpoint (even if it does not subscribe to the type); omitted: every active endpoint subscribed",
    }),
  })
  .openapi("RedeliverInput");
export const Redelivered = envelope(
  z
    .object({
      event: Event,
      endpoints: z.array(z.string()).register(z.globalRegistry, { description: "The endpoints that send it again now" }),
    })
    .openapi("Redelivered"),
);
