// Sandbox mode only: switch SII faults on and off, and count the requests the simulated SII
// received, so failure paths can be exercised from outside. They change state every caller
// shares, so off loopback they take the development token (DEV_API_TOKEN, as X-API-Token or
// Bearer) or the operator's ADMIN_TOKEN (Bearer); on loopback (tests, `npm run dev`) no token.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { isLoopbackHost } from "../../lib/address-policy.ts";
import { constantTimeEqual } from "../../lib/crypto.ts";
import { presentedToken } from "../../platform/auth.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { ApiError } from "../../platform/errors.ts";
import { envelope, errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { SANDBOX_FAULT_KINDS, type SandboxControls } from "../../ports.ts";

export function sandboxOf(c: Context<AppEnv>): SandboxControls {
  const sandbox = c.get("deps").sii.sandbox;
  if (!sandbox) throw new ApiError(404, "HTTP_404", "The sandbox exists only when SII_UPSTREAM=sandbox");
  return sandbox;
}

const FaultInput = z
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
export const tags = ["Sandbox"];
/**
 * No token from loopback (the empty requirement: anonymous), otherwise either token. OpenAPI
 * cannot say where a caller is, so the description does.
 */
export const security: Record<string, string[]>[] = [{}, { ApiToken: [] }, { AdminToken: [] }];
export const description =
  "No token from loopback (tests, `npm run dev`); otherwise the development token (`DEV_API_TOKEN`, as `X-API-Token` or " +
  "`Authorization: Bearer`) or the operator's `ADMIN_TOKEN` (`Authorization: Bearer`), and 401 without one.";

/** What a runtime tells about the connection, when it does (c.env). */
interface PeerEnv {
  /** @hono/node-server: the Node request. */
  incoming?: { socket?: { remoteAddress?: string } };
  /** hono/aws-lambda: the API Gateway event. */
  event?: { requestContext?: { http?: { sourceIp?: string }; identity?: { sourceIp?: string } } };
}

const LOOPBACK_ADDRESS = /^(?:127(?:\.\d{1,3}){3}|::1|::ffff:127(?:\.\d{1,3}){3})$/;

/**
 * Whether the caller is on this machine. Node and Lambda name the peer's address and that
 * decides; a request that came through a proxy (forwarding headers) is never local, since the
 * proxy's own address is loopback whoever sent it. Workers name no peer: the URL's host decides,
 * which is loopback only under `wrangler dev` (a deployed Worker is reached by its own host name),
 * as for the SECRET_KEY check in src/entry/worker.ts; so are in-process calls (`app.request`).
 */
export function fromLoopback(c: Context): boolean {
  const headers = c.req.raw.headers;
  if (headers.has("forwarded") || headers.has("x-forwarded-for") || headers.has("x-real-ip")) return false;
  const env = c.env as PeerEnv | undefined;
  const peer =
    env?.incoming?.socket?.remoteAddress ?? env?.event?.requestContext?.http?.sourceIp ?? env?.event?.requestContext?.identity?.sourceIp;
  if (peer !== undefined) return LOOPBACK_ADDRESS.test(peer);
  if (env?.incoming || env?.event) return false;
  return isLoopbackHost(new URL(c.req.url).hostname);
}

/** Off loopback: the development token or the admin token, compared in constant time. */
export const controlGuard: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!fromLoopback(c)) {
    const { devToken, adminToken } = c.get("deps").config;
    const presented = presentedToken(c);
    const allowed = presented !== null && [devToken, adminToken].some((secret) => secret && constantTimeEqual(presented, secret));
    if (!allowed) {
      throw new ApiError(401, "HTTP_401", "The sandbox controls need the development token or the admin token from outside this machine");
    }
  }
  await next();
};

function faultsView(sandbox: SandboxControls) {
  return { faults: sandbox.faults().map((f) => ({ service: f.service, fault: f.fault, remaining: f.remaining })) };
}

function callsView(sandbox: SandboxControls) {
  const calls = Object.fromEntries([...sandbox.calls()].sort(([a], [b]) => a.localeCompare(b)));
  return { calls, total: Object.values(calls).reduce((sum, n) => sum + n, 0) };
}

export function registerSandboxControls(app: OpenAPIHono<AppEnv>): void {
  app.use("/sandbox/v1/faults", controlGuard);
  app.use("/sandbox/v1/calls", controlGuard);
  app.openapi(
    createRoute({
      method: "post",
      path: "/sandbox/v1/faults",
      operationId: "sandbox_faults_add",
      tags,
      security,
      description,
      summary: "Make the simulated SII fail the next calls of a service",
      request: { body: jsonBody(FaultInput) },
      responses: { 200: jsonContent(Faults, "Faults now switched on"), ...errorResponses([401, 404, 422]) },
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
      security,
      description,
      summary: "Switch every fault off",
      responses: { 200: jsonContent(Faults, "No faults"), ...errorResponses([401, 404]) },
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
      security,
      description,
      summary: "Requests the simulated SII received, per service, since start or the last reset",
      responses: { 200: jsonContent(Calls, "Counts"), ...errorResponses([401, 404]) },
    }),
    (c) => ok(c, callsView(sandboxOf(c))),
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
    (c) => {
      const sandbox = sandboxOf(c);
      sandbox.resetCalls();
      return ok(c, callsView(sandbox), "Call counts reset");
    },
  );
}
