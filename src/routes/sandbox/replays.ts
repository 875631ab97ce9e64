// Sandbox mode only: give a recorded SII answer (one `npm run live-check` saved, or one captured
// by hand) instead of the simulator's own for the next calls of a service, so an answer the
// gateway could not read, or read implausibly, reproduces locally. Guarded like the faults.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { base64ToBytes } from "../../lib/encoding.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { ApiError } from "../../platform/errors.ts";
import { envelope, errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { businessRule } from "../../platform/validation.ts";
import type { SandboxControls } from "../../ports.ts";
import { MAX_WORKBOOK_BYTES } from "../../sii/vehiculos.ts";
import { controlGuard, description, sandboxOf, security, tags } from "./controls.ts";

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
/** Framing, not content: the body given decides its length. */
const FRAMING = new Set(["content-length", "transfer-encoding"]);
const NULL_BODY_STATUS = [204, 205, 304];

// A small HTML page, latin1, as the SII's web applications answer: "<html><body>Hola</body></html>".
const EXAMPLE_BODY = "PGh0bWw+PGJvZHk+SG9sYTwvYm9keT48L2h0bWw+";

const ReplayInput = z
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

function replaysView(sandbox: SandboxControls) {
  return {
    replays: sandbox.replays().map((r) => ({ service: r.service, status: r.status, bytes: r.body.length, remaining: r.remaining })),
  };
}

export function registerSandboxReplays(app: OpenAPIHono<AppEnv>): void {
  app.use("/sandbox/v1/replays", controlGuard);
  app.openapi(
    createRoute({
      method: "post",
      path: "/sandbox/v1/replays",
      operationId: "sandbox_replays_add",
      tags,
      security,
      description: `${description} The saved answers of \`npm run live-check\` are bodies of this operation as they are.`,
      summary: "Make the simulated SII give a recorded answer to the next calls of a service",
      request: { body: jsonBody(ReplayInput) },
      responses: { 200: jsonContent(Replays, "Answers now queued"), ...errorResponses([400, 401, 404, 422]) },
    }),
    (c) => {
      const sandbox = sandboxOf(c);
      const input = c.req.valid("json");
      const services = sandbox.services();
      if (!services.includes(input.service)) {
        const message = `must be a service of the simulator: ${services.join(", ")}`;
        throw new ApiError(400, "VALIDATION_ERROR", `The request breaks a rule: service`, {
          errors: [{ path: "service", location: "body", message }],
        });
      }
      const headers = Object.fromEntries(
        Object.entries(input.headers)
          .map(([name, value]) => [name.toLowerCase(), value] as const)
          .filter(([name]) => !FRAMING.has(name)),
      );
      const body = base64ToBytes(input.body);
      sandbox.addReplay({ service: input.service, status: input.status, headers, body, remaining: input.count });
      return ok(
        c,
        replaysView(sandbox),
        `The next ${input.count} call(s) to ${input.service} get the recorded answer (${body.length} bytes)`,
      );
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/sandbox/v1/replays",
      operationId: "sandbox_replays_clear",
      tags,
      security,
      description,
      summary: "Drop every recorded answer not yet given",
      responses: { 200: jsonContent(Replays, "No recorded answers"), ...errorResponses([401, 404]) },
    }),
    (c) => {
      const sandbox = sandboxOf(c);
      sandbox.clearReplays();
      return ok(c, replaysView(sandbox), "Recorded answers cleared");
    },
  );
}
