// The simulator's controls' bodies and answers: a fault, a recorded answer, the faults, call counts and recorded answers queued.
import { z } from "@hono/zod-openapi";
import { envelope } from "../../platform/schemas.ts";
import { businessRule } from "../../platform/validation.ts";
import { SANDBOX_FAULT_KINDS } from "../../ports/sandbox.ts";
import { MAX_WORKBOOK_BYTES } from "../../sii/vehiculos.ts";

export const FaultInput = z
  .object({
    service: z.string().min(1).max(100).register(z.globalRegistry, {
      description: "An SII service name (`seed`, `token`, `clave_login`, `cert_login`, `logout`, …) or an SII host (`palena.sii.cl`)",
      example: "seed",
    }),
    fault: z.enum(SANDBOX_FAULT_KINDS).register(z.globalRegistry, { example: "maintenance" }),
    count: z
      .number()
      .int()
      .min(1)
      .max(10_000)
      .default(1)
      .register(z.globalRegistry, { description: "How many calls it affects", example: 1 }),
  })
  .openapi("SandboxFault");

export const Faults = envelope(
  z.object({ faults: z.array(z.object({ service: z.string(), fault: z.string(), remaining: z.number().int() })) }),
);
export const Calls = envelope(z.object({ calls: z.record(z.string(), z.number().int()), total: z.number().int() }));

/**
 * The largest answer the gateway reads whole is an appraisal workbook (src/sii/vehiculos.ts); no
 * replay needs to be larger. The request itself is also held to MAX_BODY_BYTES.
 */
export const MAX_REPLAY_BODY_BYTES = MAX_WORKBOOK_BYTES;
export const MAX_REPLAY_COUNT = 100;
const MAX_HEADERS = 50;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
// A header value of visible characters, spaces and tabs: no line break can split the answer.
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]{0,8192}$/;
const NULL_BODY_STATUS = [204, 205, 304];

// A small HTML page, latin1, as the SII's web applications answer: "<html><body>Hola</body></html>".
const EXAMPLE_BODY = "PGh0bWw+PGJvZHk+SG9sYTwvYm9keT48L2h0bWw+";

export const ReplayInput = z
  .object({
    service: z.string().min(1).max(100).register(z.globalRegistry, {
      description: "A service name of the simulator, as in `POST /sandbox/v1/faults` (`indicadores`, `bte_report`, `rcv_detalle`, …)",
      example: "indicadores",
    }),
    status: z.number().int().min(200).max(599).register(z.globalRegistry, { description: "The HTTP status of the answer", example: 200 }),
    headers: z
      .record(
        z.string().max(100).regex(HEADER_NAME, "must be an HTTP header name"),
        z.string().max(8192).regex(HEADER_VALUE, "must be one line of at most 8192 characters"),
      )
      .default({})
      .refine((h) => Object.keys(h).length <= MAX_HEADERS, businessRule(`at most ${MAX_HEADERS} headers`))
      .refine(
        (h) => new Set(Object.keys(h).map((k) => k.toLowerCase())).size === Object.keys(h).length,
        businessRule("a header name is given twice (names are case-insensitive)"),
      )
      .register(z.globalRegistry, {
        description: "The answer's headers (`content-length` and `transfer-encoding` are set from the body)",
        example: { "content-type": "text/html; charset=ISO-8859-1" },
      }),
    body: z
      .string()
      .max(Math.ceil(MAX_REPLAY_BODY_BYTES / 3) * 4)
      // The document states the pattern, so a body that breaks it is a 422 like any shape rule.
      .regex(BASE64, { error: "must be base64 (A-Z a-z 0-9 + /, padded with =)" })
      .meta({ description: `The answer's bytes, base64; at most ${MAX_REPLAY_BODY_BYTES} bytes`, example: EXAMPLE_BODY }),
    count: z
      .number()
      .int()
      .min(1)
      .max(MAX_REPLAY_COUNT)
      .default(1)
      .register(z.globalRegistry, { description: "How many calls get this answer", example: 1 }),
  })
  .refine(
    (r) => !NULL_BODY_STATUS.includes(r.status) || r.body === "",
    businessRule(`must be empty with status ${NULL_BODY_STATUS.join(", ")} (an answer without a body)`),
  )
  .openapi("SandboxReplay");

export const Replays = envelope(
  z.object({
    replays: z.array(
      z.object({
        service: z.string(),
        status: z.number().int(),
        bytes: z.number().int().register(z.globalRegistry, { description: "The body's size" }),
        remaining: z.number().int(),
      }),
    ),
  }),
);
