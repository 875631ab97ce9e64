// POST /api/v1/settings/proxy/test: reach the SII host of the chosen ambiente through the
// account's proxy and report what happened. It never connects anywhere the caller chooses.
//
// The proxy's address is the caller's, so whatever tells one failure from another (a closed
// port, a refused or filtered one, a service that is no proxy, a timeout) would make this a port
// scanner: every failure before the SII answered is one message, with no latency. Only the
// address policy's refusal keeps its words: it is decided from the address the caller gave.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { ADDRESS_CLASSES, PROXY_NOT_ALLOWED } from "../../lib/address-policy.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { ApiError } from "../../platform/errors.ts";
import { registerOperation } from "../../platform/operation.ts";
import { Ambiente } from "../../platform/params.ts";
import { envelope, errorResponses, jsonContent } from "../../platform/schemas.ts";
import { siiContext } from "../../services/sii-context.ts";
import { siiHosts } from "../../sii/hosts.ts";
import { siiFetch } from "../../sii/http.ts";

const Query = z.object({ ambiente: Ambiente });

/** The one answer for a proxy through which the SII did not answer, whatever the reason. */
export const UNREACHED = "the SII could not be reached through the proxy";

/**
 * What a failed test tells the caller: the address policy's refusal in its own words, the SII's
 * status when the SII itself answered, and otherwise `UNREACHED` (never the transport's text).
 */
export function failureOf(err: ApiError): { error: string; status: number | null } {
  const details = err.init.details ?? {};
  const reason = String(details.reason ?? "");
  const refused = ADDRESS_CLASSES.find((cls) => reason.includes(`${PROXY_NOT_ALLOWED}${cls}`));
  if (refused) return { error: `${PROXY_NOT_ALLOWED}${refused}`, status: null };
  if (typeof details.sii_status === "number") return { error: err.message, status: details.sii_status };
  // The operator's setup, not the proxy's host: say what is missing.
  if (err.code === "NOT_IMPLEMENTED") return { error: err.message, status: null };
  return { error: UNREACHED, status: null };
}

export const ProxyTest = envelope(
  z.object({
    reachable: z.boolean(),
    target: z.string().register(z.globalRegistry, { example: "https://palena.sii.cl" }),
    proxy: z.string().register(z.globalRegistry, { example: "http://proxy.example.cl:3128" }),
    latency_ms: z
      .number()
      .nullable()
      .register(z.globalRegistry, { description: "How long the SII took to answer; null when it was not reached" }),
    sii_status: z.number().nullable().register(z.globalRegistry, { description: "HTTP status the SII answered through the proxy" }),
    error: z
      .string()
      .nullable()
      .register(z.globalRegistry, {
        description: `What failed: \`${UNREACHED}\` for every failure before the SII answered (a closed, refused or filtered port, a service that is no proxy, a timeout: one message, so the test cannot scan ports), \`${PROXY_NOT_ALLOWED}<class>\` when the address policy refuses the proxy, or the SII's own failure`,
        example: UNREACHED,
      }),
    upstream: z
      .enum(["sandbox", "live"])
      .register(z.globalRegistry, { description: "In sandbox mode the simulated SII is reached in-process, without the proxy" }),
  }),
);

export function registerSettingsTestProxy(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/settings/proxy/test",
      tags: ["Settings"],
      summary: "Reach the SII through the account's proxy",
      description:
        "Fetches the SII's seed service description through the enabled proxy (15 s timeout) and reports whether it answered, its status and the latency; a failure is a 200 with `reachable: false` and the reason. Every failure before the SII answered (closed, refused or filtered port, no proxy there, timeout) gives the same answer, so the test tells nothing about the ports of the proxy's host. 400 when the account has no enabled proxy. Needs the `settings:write` scope.",
      request: { query: Query },
      responses: { 200: jsonContent(ProxyTest, "What the test found (also when the SII was not reached)"), ...errorResponses([400]) },
    }),
    { scope: "settings:write", weight: 1 },
    async (c) => {
      const { ambiente } = c.req.valid("query");
      const ctx = await siiContext(c);
      if (!ctx.proxy) throw new ApiError(400, "VALIDATION_ERROR", "No proxy is enabled for this account: PUT /api/v1/settings/proxy first");
      const target = `https://${siiHosts(ambiente).dte}`;
      const started = performance.now();
      let status: number | null = null;
      let error: string | null = null;
      try {
        status = (
          await siiFetch({ ...ctx, timeoutMs: 15_000 }, new Request(`${target}/DTEWS/CrSeed.jws?WSDL`), {
            service: "proxy_test",
            read: false,
          })
        ).status;
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        ({ error, status } = failureOf(err));
      }
      return ok(c, {
        reachable: error === null,
        target,
        proxy: ctx.proxy.url,
        latency_ms: status === null ? null : Math.round(performance.now() - started),
        sii_status: status,
        error,
        upstream: c.get("deps").sii.mode,
      });
    },
  );
}
