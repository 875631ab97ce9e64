// What every route table of the simulator shares: the app it registers on, the service wrapper
// (serve.ts: counts, replays, faults, the rough schedule), the state, the clock and the options;
// and the SII's SOAP/CGI hosts (palena production, maullin certification).
import type { Context, Hono } from "hono";
import type { Env, Service } from "../serve.ts";
import type { CertificateCheck } from "../soap.ts";
import type { SandboxState } from "../state.ts";

export interface SandboxOptions {
  now?: () => number;
  /** Checks a certificate presented to the SII: issued by the sandbox CA, valid, with a RUT. */
  checkCertificate: (certificateBase64: string) => Promise<CertificateCheck>;
  /** How long a `timeout` fault keeps a request hanging (the client's timeout should fire first). */
  hangMs?: number;
  /** Rows of the light-vehicle appraisal workbook (the heavy one has an eighth as many). */
  vehicleRows?: number;
  /** The rough schedule's seed (rough.ts); null or absent: the tidy sandbox. */
  roughSeed?: number | null;
}

export interface RouteKit {
  app: Hono<Env>;
  service: Service;
  state: SandboxState;
  now: () => number;
  options: SandboxOptions;
}

export const soapHosts = "{palena\\.sii\\.cl|maullin\\.sii\\.cl}";

/** The SII environment a request to palena or maullin is for: "1" certification, "0" production. */
export const ambienteOf = (c: Context<Env>) => (c.req.param("host") === "maullin.sii.cl" ? "1" : "0");
