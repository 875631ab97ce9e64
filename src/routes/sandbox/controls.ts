// Sandbox mode only: switch SII faults on and off, and count the requests the simulated SII
// received, so failure paths can be exercised from outside (src/services/sandbox-controls.ts);
// guarded as ./guard.ts says.
import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { strictBody } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { addFault, callCounts, clearFaults, resetCalls } from "../../services/sandbox-controls.ts";
import { controlGuard, description, security, tags } from "./guard.ts";
import { Calls, FaultInput, Faults } from "./schema.ts";

export function registerSandboxControls(app: OpenAPIHono<AppEnv>): void {
  app.use("/sandbox/v1/faults", controlGuard);
  app.use("/sandbox/v1/calls", controlGuard);
  const route = createRoute({
    method: "post",
    path: "/sandbox/v1/faults",
    operationId: "sandbox_faults_add",
    tags,
    security,
    description,
    summary: "Make the simulated SII fail the next calls of a service",
    request: { body: jsonBody(FaultInput) },
    responses: { 200: jsonContent(Faults, "Faults now switched on"), ...errorResponses([400, 401, 404, 422]) },
  });
  app.openapi(
    route,
    (c) => {
      const input = c.req.valid("json");
      const faults = addFault(callerOf(c), { service: input.service, fault: input.fault, remaining: input.count });
      return ok(c, faults, `The next ${input.count} call(s) to ${input.service} get ${input.fault}`);
    },
    strictBody(route),
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/sandbox/v1/faults",
      operationId: "sandbox_faults_clear",
      tags,
      security,
      description,
      summary: "Switch every fault off",
      responses: { 200: jsonContent(Faults, "No faults"), ...errorResponses([401, 404]) },
    }),
    (c) => ok(c, clearFaults(callerOf(c)), "Faults cleared"),
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/sandbox/v1/calls",
      operationId: "sandbox_calls_get",
      tags,
      security,
      description,
      summary: "Requests the simulated SII received, per service, since start or the last reset",
      responses: { 200: jsonContent(Calls, "Counts"), ...errorResponses([401, 404]) },
    }),
    (c) => ok(c, callCounts(callerOf(c))),
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/sandbox/v1/calls",
      operationId: "sandbox_calls_reset",
      tags,
      security,
      description,
      summary: "Reset the call counts",
      responses: { 200: jsonContent(Calls, "Counts reset"), ...errorResponses([401, 404]) },
    }),
    (c) => ok(c, resetCalls(callerOf(c)), "Call counts reset"),
  );
}
