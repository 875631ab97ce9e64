// The built-in SII simulator. Requests arrive with the real SII URLs; the host picks which SII
// application answers (the route tables in routes/, one per SII application). Every service counts
// its calls and honours switched-on faults first (serve.ts).

import { Hono } from "hono";
import { SANDBOX_BHE } from "./bhe.ts";
import { sandboxBte } from "./bte.ts";
import { seedEnvios } from "./envios.ts";
import { seedReceivedDocuments } from "./intercambios.ts";
import { latin1Html } from "./pages.ts";
import { RoughSchedule } from "./rough.ts";
import { registerDteWsRoutes } from "./routes/dte-ws.ts";
import { registerFoliosRoutes } from "./routes/folios.ts";
import type { SandboxOptions } from "./routes/kit.ts";
import { registerPortalRoutes } from "./routes/portal.ts";
import { registerPublicPageRoutes } from "./routes/public-pages.ts";
import { registerRcvRoutes } from "./routes/rcv.ts";
import { type Env, RESET, SERVICE_NAME, serviceRegistry } from "./serve.ts";
import { SandboxState } from "./state.ts";

export interface Sandbox {
  readonly state: SandboxState;
  /** `clientCertificate`: what a TLS client would present to the SII (the certificate login). */
  fetch(request: Request, tls?: { clientCertificatePem?: string }): Promise<Response>;
  /** The service names it answers, sorted (what faults and replays name). */
  services(): string[];
  /** The service a request to the SII's URL would reach, or null; nothing is counted or answered. */
  serviceOf(request: Request): Promise<string | null>;
}

export function createSandbox(options: SandboxOptions): Sandbox {
  const state = new SandboxState();
  if (options.roughSeed != null) state.rough = new RoughSchedule(options.roughSeed);
  state.bhe.push(...SANDBOX_BHE.map((slip) => ({ ...slip })));
  state.bte.push(...sandboxBte());
  const base = options.now ?? Date.now;
  // The clock the sandbox's controls move forward: envelopes progress and tokens expire on it.
  const now = () => base() + state.clockOffset;
  seedReceivedDocuments(state, now());
  seedEnvios(state, now());
  const hangMs = options.hangMs ?? 120_000;
  const app = new Hono<Env>();

  const { service, names } = serviceRegistry(state, now, hangMs);
  const kit = { app, service, state, now, options };
  registerDteWsRoutes(kit);
  registerPortalRoutes(kit);
  registerFoliosRoutes(kit);
  registerRcvRoutes(kit);
  registerPublicPageRoutes(kit);

  app.notFound(() => latin1Html("<h1>Not Found</h1><p>The requested URL was not found on this server.</p>", 404));

  // Route on host + path: `https://palena.sii.cl/DTEWS/CrSeed.jws` → `/palena.sii.cl/DTEWS/CrSeed.jws`.
  const routed = (request: Request) => {
    const url = new URL(request.url);
    return new Request(`http://sandbox/${url.hostname}${url.pathname}${url.search}`, request);
  };
  const sorted = [...names].sort();
  return {
    state,
    async fetch(request, tls) {
      const res = await app.fetch(routed(request), { clientCertificatePem: tls?.clientCertificatePem });
      if (res.headers.has(RESET)) throw new TypeError("fetch failed", { cause: new Error("read ECONNRESET") });
      return res;
    },
    services: () => [...sorted],
    async serviceOf(request) {
      const res = await app.fetch(routed(request), { identify: true });
      return res.headers.get(SERVICE_NAME);
    },
  };
}
