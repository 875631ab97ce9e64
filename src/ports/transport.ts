// Interfaces only: how the gateway reaches the SII (the real hosts, or the built-in simulator of
// src/sandbox/, wired by the entry files) and the certificate and proxy a call may go with.
import type { SandboxControls } from "./sandbox.ts";

/** A TLS client certificate for the SII's certificate login (mutual TLS). Held in memory only. */
export interface ClientCertificate {
  /** The holder's certificate first, then its chain. */
  certificatePem: string;
  privateKeyPem: string;
}

/** An outbound HTTP(S) proxy an account routes its SII traffic through. */
export interface ProxyRoute {
  url: string;
  username: string | null;
  password: string | null;
}

export interface TransportOptions {
  clientCertificate?: ClientCertificate;
  proxy?: ProxyRoute | null;
}

/** How the gateway reaches the SII: the real hosts, or the built-in sandbox. */
export interface SiiTransport {
  readonly mode: "sandbox" | "live";
  fetch(request: Request, options?: TransportOptions): Promise<Response>;
  /** Sandbox mode only: the simulator's test controls (faults, call counts, its test credentials). */
  readonly sandbox?: SandboxControls;
}
