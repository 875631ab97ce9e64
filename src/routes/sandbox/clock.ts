// Sandbox mode only: GET and POST /sandbox/v1/clock move the simulated SII's clock (and the gateway's,
// which follows it) ahead, so a job's schedule, an envelope's REC → SOK → EPR and a token's expiry can
// be watched without waiting. Guarded as ./guard.ts says; the clock only moves forward.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { strictBody } from "../../platform/operation.ts";
import { envelope, errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { advanceClock, clockView } from "../../services/sandbox-controls.ts";
import { controlGuard, description, security, tags } from "./guard.ts";

/** One move at most a month: the longest any schedule of the gateway runs (events are kept 30 days). */
const MAX_ADVANCE_SECONDS = 31 * 24 * 60 * 60;

const ClockInput = z.strictObject({
  avanzar_segundos: z
    .number()
    .int({ error: "must be a whole number of seconds" })
    .min(1)
    .max(MAX_ADVANCE_SECONDS)
    .register(z.globalRegistry, {
      description: `How far to move the clock ahead, in seconds (1 to ${MAX_ADVANCE_SECONDS})`,
      example: 600,
    }),
});

const Clock = envelope(
  z
    .object({
      ahora: z.string().register(z.globalRegistry, { description: "The sandbox's time (ISO 8601), the gateway's too" }),
      adelanto_segundos: z.number().register(z.globalRegistry, { description: "How far it is ahead of the real clock" }),
    })
    .openapi("SandboxClock"),
);

export function registerSandboxClock(app: OpenAPIHono<AppEnv>): void {
  app.use("/sandbox/v1/clock", controlGuard);
  const post = createRoute({
    method: "post",
    path: "/sandbox/v1/clock",
    operationId: "sandbox_clock_advance",
    tags,
    security,
    description: `${description} The simulated SII's clock and the gateway's move together: envelopes progress, tokens and sessions expire, and jobs come due as if the time had passed.`,
    summary: "Move the sandbox's clock ahead",
    request: { body: jsonBody(ClockInput) },
    responses: { 200: jsonContent(Clock, "The clock, moved"), ...errorResponses([400, 401, 404, 422]) },
  });
  app.openapi(
    post,
    (c) => ok(c, advanceClock(callerOf(c), c.req.valid("json").avanzar_segundos * 1000), "Clock moved ahead"),
    strictBody(post),
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/sandbox/v1/clock",
      operationId: "sandbox_clock_get",
      tags,
      security,
      description,
      summary: "Read the sandbox's clock",
      responses: { 200: jsonContent(Clock, "The clock"), ...errorResponses([401, 404]) },
    }),
    (c) => ok(c, clockView(callerOf(c))),
  );
}
