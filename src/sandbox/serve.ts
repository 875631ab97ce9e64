// How the simulator answers a request for one SII service: counted, given a recorded answer
// (POST /sandbox/v1/replays) or a queued fault first, then, on the rough schedule, a transient
// failure or a quirk; else the service's own answer. The route tables (routes/) register each SII
// service through `service`.
import type { Context } from "hono";
import { decodeLatin1, encodeLatin1 } from "../lib/latin1.ts";
import { latin1Html, MAINTENANCE_TEXT, SESSION_LIMIT_TEXT, THROTTLE_TEXT } from "./pages.ts";
import type { FaultKind, SandboxState } from "./state.ts";

/** `identify`: only name the service that would answer (see `serviceOf`). */
export type Env = { Bindings: { clientCertificatePem?: string; identify?: boolean } };

export type ServiceHandler = (c: Context<Env>) => Response | Promise<Response>;

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

/** Carries the service name a request would reach, when the sandbox is only asked which one. */
export const SERVICE_NAME = "x-sandbox-service";

/** Marks a response the sandbox's fetch turns into a dropped connection. */
export const RESET = "x-sandbox-connection-reset";

/**
 * An answer that says it is gzip and is not: the gzip header (magic bytes, deflate, no flags),
 * then a deflate block of the reserved type, which no inflater accepts.
 */
const NOT_GZIP = new Uint8Array([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);

async function faultResponse(fault: Exclude<FaultKind, "truncated" | "charset">, hangMs: number, signal: AbortSignal): Promise<Response> {
  switch (fault) {
    case "reset":
      return new Response(null, { headers: { [RESET]: "1" } });
    case "maintenance":
      return latin1Html(`<p>${MAINTENANCE_TEXT}</p>`);
    case "throttle":
      return latin1Html(`<h1>${THROTTLE_TEXT}</h1>`, 429, { "Retry-After": "60" });
    case "session_limit":
      return latin1Html(`<p>${SESSION_LIMIT_TEXT}</p>`);
    case "html":
      return latin1Html("<h1>Servicio no disponible</h1><p>Error inesperado.</p>");
    case "http_5xx":
      return latin1Html("<h1>Error 500</h1>", 500);
    case "timeout":
      await sleep(hangMs, signal);
      return latin1Html("<h1>Gateway Timeout</h1>", 504);
    case "bad_gzip":
      return new Response(NOT_GZIP, { headers: { "content-type": "application/octet-stream", "content-encoding": "gzip" } });
  }
}

/** Registers SII services by name (`names`: every one registered) over `state`, at the sandbox's clock `now`. */
export function serviceRegistry(state: SandboxState, now: () => number, hangMs: number) {
  const names = new Set<string>();
  /** Registers one SII service: counted, given a recorded answer or a fault if one is queued, then answered. */
  const service = (name: string, handler: ServiceHandler) => {
    names.add(name);
    return (c: Context<Env>) => (c.env?.identify ? new Response(null, { headers: { [SERVICE_NAME]: name } }) : serve(name, handler, c));
  };
  const serve = async (name: string, handler: ServiceHandler, c: Context<Env>) => {
    state.count(name);
    // A recorded answer (POST /sandbox/v1/replays) stands in for the simulator's own, byte for byte.
    const replay = state.takeReplay(name);
    if (replay) return replay;
    const fault = state.takeFault(name, c.req.param("host") ?? "");
    if (fault === "truncated") {
      // The real answer, cut in the middle (a connection that closed early).
      const res = await handler(c);
      const bytes = await res.arrayBuffer();
      const headers = new Headers(res.headers);
      headers.delete("content-length");
      return new Response(bytes.slice(0, Math.floor(bytes.byteLength / 2)), { status: res.status, headers });
    }
    if (fault === "charset") {
      // The real answer with the other charset than the one it declares (latin1 ⇄ UTF-8); a
      // binary file (a workbook) has no charset to get wrong.
      const res = await handler(c);
      if (!/^text\/|json|[/+]xml(;|$)/i.test(res.headers.get("content-type") ?? "")) return res;
      const bytes = new Uint8Array(await res.arrayBuffer());
      const declaredUtf8 = /utf-8|json/i.test(res.headers.get("content-type") ?? "");
      const swapped = declaredUtf8 ? encodeLatin1(new TextDecoder().decode(bytes)) : new TextEncoder().encode(decodeLatin1(bytes));
      const headers = new Headers(res.headers);
      headers.delete("content-length");
      return new Response(swapped, { status: res.status, headers });
    }
    if (fault) return faultResponse(fault, hangMs, c.req.raw.signal);
    const rough = state.rough;
    if (!rough) return handler(c);
    rough.beforeCall(name, c.req.raw, state.sessions, now());
    const transient = await rough.transient(name, c.req.raw, state);
    return transient ?? rough.quirk(name, await handler(c));
  };
  return { service, names };
}

/** What a route table registers its services with (`serviceRegistry`'s `service`). */
export type Service = ReturnType<typeof serviceRegistry>["service"];
