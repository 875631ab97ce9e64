// Sandbox mode only: give a recorded SII answer (one `npm run live-check` saved, or one captured
// by hand) instead of the simulator's own for the next calls of a service, so an answer the
// gateway could not read, or read implausibly, reproduces locally (src/services/sandbox-controls.ts).
// Guarded like the faults (./guard.ts).
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { base64ToBytes } from "../../lib/encoding.ts";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { strictBody } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { addReplay, clearReplays } from "../../services/sandbox-controls.ts";
import { controlGuard, description, security, tags } from "./guard.ts";
import { ReplayInput, Replays } from "./schema.ts";

export function registerSandboxReplays(app: OpenAPIHono<AppEnv>): void {
  app.use("/sandbox/v1/replays", controlGuard);
  const route = createRoute({
    method: "post",
    path: "/sandbox/v1/replays",
    operationId: "sandbox_replays_add",
    tags,
    security,
    description: `${description} The saved answers of \`npm run live-check\` are bodies of this operation as they are.`,
    summary: "Make the simulated SII give a recorded answer to the next calls of a service",
    request: { body: jsonBody(ReplayInput) },
    responses: { 200: jsonContent(Replays, "Answers now queued"), ...errorResponses([400, 401, 404, 422]) },
  });
  app.openapi(
    route,
    (c) => {
      const input = c.req.valid("json");
      const body = base64ToBytes(input.body);
      const replays = addReplay(callerOf(c), { ...input, body });
      return ok(c, replays, `The next ${input.count} call(s) to ${input.service} get the recorded answer (${body.length} bytes)`);
    },
    strictBody(route),
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
    (c) => ok(c, clearReplays(callerOf(c)), "Recorded answers cleared"),
  );
}
