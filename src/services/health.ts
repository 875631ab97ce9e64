// The gateway's health, with no HTTP: its own state, and on the operator's deep check whether each
// SII host the gateway talks to answers through the configured transport. Where the gateway itself
// reads a page or description from a host without a session, the check reads that; elsewhere it
// asks for the host's root. Any HTTP answer counts as reached: the check is about the network path
// through the configured transport, not about the SII's mood. The hosts are src/sii/hosts.ts's one
// list; only the paths are the health check's. A host that fails is reported, never thrown.
import packageJson from "../../package.json" with { type: "json" };
import { constantTimeEqual } from "../lib/crypto.ts";
import type { Caller } from "../platform/caller.ts";
import { ApiError } from "../platform/errors.ts";
import type { SiiTransport } from "../ports/transport.ts";
import { SII_HOSTS } from "../sii/hosts.ts";

export interface HealthProbe {
  host: string;
  path: string;
}

/** A path a host answers without a session, where the gateway reads one; the others are asked for their root. */
const PROBE_PATHS: Readonly<Record<string, string>> = {
  // Axis serves each .jws service's WSDL on GET; SOAP clients read it first (the proxy test does too).
  "palena.sii.cl": "/DTEWS/CrSeed.jws?WSDL",
  "maullin.sii.cl": "/DTEWS/CrSeed.jws?WSDL",
  // The clave login's form page, fetched before the login post (docs/sii-services.md §2.3, step 1).
  "zeusr.sii.cl": "/AUT2000/InicioAutenticacion/IngresoRutClave.html",
};

export const HEALTH_PROBES: readonly HealthProbe[] = SII_HOSTS.map((host) => ({ host, path: PROBE_PATHS[host] ?? "/" }));

export interface ProbeResult {
  host: string;
  reachable: boolean;
  /** The HTTP status the host answered, when it answered. */
  status: number | null;
  latency_ms: number;
  /** Why the host was not reached, in the gateway's words. */
  error: string | null;
}

/** One probe: a GET within `timeoutMs`, its body left unread. Never throws. */
export async function probeHost(transport: SiiTransport, probe: HealthProbe, timeoutMs: number): Promise<ProbeResult> {
  const started = performance.now();
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve("timeout");
    }, timeoutMs);
  });
  const result = (reachable: boolean, status: number | null, error: string | null): ProbeResult => ({
    host: probe.host,
    reachable,
    status,
    latency_ms: Math.round(performance.now() - started),
    error,
  });
  try {
    const request = new Request(`https://${probe.host}${probe.path}`, { method: "GET", signal: controller.signal });
    const answer = await Promise.race([transport.fetch(request), timedOut]);
    if (answer === "timeout") return result(false, null, `no answer within ${timeoutMs} ms`);
    answer.body?.cancel().catch(() => undefined);
    return result(true, answer.status, null);
  } catch (err) {
    // The network's own words (a reset, a refused connection, a name that does not resolve).
    const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : "";
    return result(false, null, err instanceof Error ? `${err.message}${cause}`.slice(0, 200) : "failed");
  } finally {
    clearTimeout(timer);
  }
}

/** Every host at once, so the whole check takes about one `timeoutMs` at most. */
function probeAll(transport: SiiTransport, timeoutMs: number): Promise<ProbeResult[]> {
  return Promise.all(HEALTH_PROBES.map((probe) => probeHost(transport, probe, timeoutMs)));
}

/** Per host, and so for the whole deep check (the hosts are asked at once). */
export const HEALTH_PROBE_TIMEOUT_MS = 5_000;

/**
 * The gateway's mode and version; with `deep` also each SII host's state (`degraded` when one was
 * not reached), which only the operator may ask: `bearer` must be the ADMIN_TOKEN, else 401.
 */
export async function gatewayHealth(caller: Pick<Caller, "deps">, deep: boolean, bearer: string | undefined) {
  const { config, sii } = caller.deps;
  const base = { mode: sii.mode, version: packageJson.version };
  if (!deep) return { status: "ok" as const, ...base };
  // As the admin API compares its token: in constant time, and never open when no ADMIN_TOKEN is set.
  if (!config.adminToken || !bearer || !constantTimeEqual(bearer, config.adminToken)) {
    throw new ApiError(401, "HTTP_401", "The deep check needs Authorization: Bearer <ADMIN_TOKEN>");
  }
  const timeoutMs = Math.min(HEALTH_PROBE_TIMEOUT_MS, config.siiTimeoutMs ?? HEALTH_PROBE_TIMEOUT_MS);
  const hosts = await probeAll(sii, timeoutMs);
  const status = hosts.every((h) => h.reachable) ? ("ok" as const) : ("degraded" as const);
  return { status, ...base, sii: hosts };
}
