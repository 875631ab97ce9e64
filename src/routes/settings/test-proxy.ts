// POST /api/v1/settings/proxy/test: reach the SII host of the chosen ambiente through the
// account's proxy and report what happened. It never connects anywhere the caller chooses.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { ApiError } from "../../platform/errors.ts";
import { registerOperation, valid } from "../../platform/operation.ts";
import { Ambiente } from "../../platform/params.ts";
import { envelope, errorResponses, jsonContent } from "../../platform/schemas.ts";
import { siiHosts } from "../../sii/hosts.ts";
import { siiFetch } from "../../sii/http.ts";
import { siiContext } from "../sii-context.ts";

const Query = z.object({ ambiente: Ambiente });

const ProxyTest = envelope(
  z.object({
    reachable: z.boolean(),
    target: z.string().openapi({ example: "https://palena.sii.cl" }),
    proxy: z.string().openapi({ example: "http://proxy.example.cl:3128" }),
    latency_ms: z.number(),
    sii_status: z.number().nullable().openapi({ description: "HTTP status the SII answered through the proxy" }),
    error: z.string().nullable().openapi({
      description:
        "What failed, in the gateway's words (the proxy could not be reached, refused, was not HTTP, or its address is not allowed)",
    }),
    upstream: z
      .enum(["sandbox", "live"])
      .openapi({ description: "In sandbox mode the simulated SII is reached in-process, without the proxy" }),
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
        "Fetches the SII's seed service description through the enabled proxy (15 s timeout) and reports whether it answered, its status and the latency; a failure is a 200 with `reachable: false` and the reason. 400 when the account has no enabled proxy. Needs the `settings:write` scope.",
      request: { query: Query },
      responses: { 200: jsonContent(ProxyTest, "What the test found (also when the SII was not reached)"), ...errorResponses([400]) },
    }),
    { scope: "settings:write", weight: 1 },
    async (c) => {
      const { ambiente } = valid(c, "query", Query);
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
        const details = err.init.details ?? {};
        status = typeof details.sii_status === "number" ? details.sii_status : null;
        // Proxy failures arrive in the gateway's fixed words (the transport keeps the socket's text).
        error =
          details.reason === "timeout"
            ? "no answer through the proxy within 15 s"
            : String(details.reason ?? details.sii_message ?? err.message);
      }
      return ok(c, {
        reachable: error === null,
        target,
        proxy: ctx.proxy.url,
        latency_ms: Math.round(performance.now() - started),
        sii_status: status,
        error,
        upstream: c.var.deps.sii.mode,
      });
    },
  );
}
