// Sandbox mode only, without an API token: switch SII faults on and off, and count the requests
// the simulated SII received, so failure paths can be exercised from outside.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { ApiError } from "../../platform/errors.ts";
import { envelope, errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { SANDBOX_FAULT_KINDS, type SandboxControls } from "../../ports.ts";

function sandboxOf(c: Context<AppEnv>): SandboxControls {
  const sandbox = c.var.deps.sii.sandbox;
  if (!sandbox) throw new ApiError(404, "HTTP_404", "The sandbox exists only when SII_UPSTREAM=sandbox");
  return sandbox;
}

const FaultInput = z
  .object({
    service: z.string().min(1).max(100).openapi({
      description: "An SII service name (`seed`, `token`, `clave_login`, `cert_login`, `logout`, …) or an SII host (`palena.sii.cl`)",
      example: "seed",
    }),
    fault: z.enum(SANDBOX_FAULT_KINDS).openapi({ example: "maintenance" }),
    count: z.number().int().min(1).max(10_000).default(1).openapi({ description: "How many calls it affects", example: 1 }),
  })
  .openapi("SandboxFault");

const Faults = envelope(z.object({ faults: z.array(z.object({ service: z.string(), fault: z.string(), remaining: z.number().int() })) }));
const Calls = envelope(z.object({ calls: z.record(z.string(), z.number().int()), total: z.number().int() }));
const tags = ["Sandbox"];

function faultsView(sandbox: SandboxControls) {
  return { faults: sandbox.faults().map((f) => ({ service: f.service, fault: f.fault, remaining: f.remaining })) };
}

function callsView(sandbox: SandboxControls) {
  const calls = Object.fromEntries([...sandbox.calls()].sort(([a], [b]) => a.localeCompare(b)));
  return { calls, total: Object.values(calls).reduce((sum, n) => sum + n, 0) };
}

export function registerSandboxControls(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "post",
      path: "/sandbox/v1/faults",
      operationId: "sandbox_faults_add",
      tags,
      summary: "Make the simulated SII fail the next calls of a service",
      request: { body: jsonBody(FaultInput) },
      responses: { 200: jsonContent(Faults, "Faults now switched on"), ...errorResponses([404, 422]) },
    }),
    (c) => {
      const sandbox = sandboxOf(c);
      const input = c.req.valid("json");
      sandbox.addFault({ service: input.service, fault: input.fault, remaining: input.count });
      return ok(c, faultsView(sandbox), `The next ${input.count} call(s) to ${input.service} get ${input.fault}`);
    },
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/sandbox/v1/faults",
      operationId: "sandbox_faults_clear",
      tags,
      summary: "Switch every fault off",
      responses: { 200: jsonContent(Faults, "No faults"), ...errorResponses([404]) },
    }),
    (c) => {
      const sandbox = sandboxOf(c);
      sandbox.clearFaults();
      return ok(c, faultsView(sandbox), "Faults cleared");
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/sandbox/v1/calls",
      operationId: "sandbox_calls_get",
      tags,
      summary: "Requests the simulated SII received, per service, since start or the last reset",
      responses: { 200: jsonContent(Calls, "Counts"), ...errorResponses([404]) },
    }),
    (c) => ok(c, callsView(sandboxOf(c))),
  );

  app.openapi(
    createRoute({
      method: "delete",
      path: "/sandbox/v1/calls",
      operationId: "sandbox_calls_reset",
      tags,
      summary: "Reset the call counts",
      responses: { 200: jsonContent(Calls, "Counts reset"), ...errorResponses([404]) },
    }),
    (c) => {
      const sandbox = sandboxOf(c);
      sandbox.resetCalls();
      return ok(c, callsView(sandbox), "Call counts reset");
    },
  );
}
