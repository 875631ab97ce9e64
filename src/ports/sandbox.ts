// Interfaces only: the simulator's test controls as the gateway sees them (faults, replays, call
// counts, its test credentials), and the fault kinds they are typed from.

/** How the simulator can be told to fail a service's next calls. */
export const SANDBOX_FAULT_KINDS = [
  "maintenance",
  "throttle",
  "session_limit",
  "html",
  "timeout",
  "http_5xx",
  "reset",
  "truncated",
  "charset",
  "bad_gzip",
] as const;
export type SandboxFaultKind = (typeof SANDBOX_FAULT_KINDS)[number];

export interface SandboxFault {
  /** A service name (`seed`, `token`, `clave_login`, …) or an SII host (`palena.sii.cl`). */
  service: string;
  fault: SandboxFaultKind;
  /** Calls still to be affected. */
  remaining: number;
}

/** A recorded SII answer the simulator gives instead of its own, for the next calls of a service. */
export interface SandboxReplay {
  /** A service name of the simulator (`indicadores`, `bte_report`, …). */
  service: string;
  status: number;
  /** Header names lower-case. */
  headers: Record<string, string>;
  body: Uint8Array;
  /** Calls still to be answered with it. */
  remaining: number;
}

/** A test taxpayer of the simulator, with the secrets that work only against it. */
export interface SandboxTaxpayer {
  rut: string;
  razon_social: string;
  kind: "company" | "person";
  clave: string;
  certificate_holder: string;
  samples: { bhe_codes: string[] };
  cert: { "cert-data": string; "pkey-data": string };
  pfx: { "pfx-data": string; passphrase: string };
  pfx_legacy: { "pfx-data": string; passphrase: string };
}

export interface SandboxCredentials {
  taxpayers: SandboxTaxpayer[];
  /** PEM of the CA that issued the taxpayers' certificates. */
  ca_certificate: string;
  caf_signing_key: { idk: number; public_key: string };
}

/** An RSA public key as big-endian bytes: the one that signs the simulator's CAFs. */
export interface CafSigningKey {
  idk: string;
  modulus: Uint8Array;
  exponent: Uint8Array;
}

/** The simulator as the gateway sees it: test controls only, never its state or its code. */
export interface SandboxControls {
  faults(): SandboxFault[];
  addFault(fault: SandboxFault): void;
  clearFaults(): void;
  /** The service names the simulator answers, sorted: what faults and replays name. */
  services(): string[];
  replays(): SandboxReplay[];
  addReplay(replay: SandboxReplay): void;
  clearReplays(): void;
  /** Requests received per service since start or the last reset. */
  calls(): Map<string, number>;
  resetCalls(): void;
  credentials(): SandboxCredentials;
  /** Trusted next to the SII's own CAF keys while the gateway talks to the simulator. */
  cafSigningKey(): CafSigningKey;
  /** How far the simulator's clock has been moved ahead of the real one (ms); the gateway's clock follows it in sandbox mode. */
  clockOffset(): number;
  /** Moves the simulator's clock `ms` ahead (never back: leases and expiries only move forward). */
  advanceClock(ms: number): void;
  /** PEM of the CA that issues the test taxpayers' certificates: a trust anchor for DTE signers while the gateway talks to the simulator. */
  caCertificate(): string;
}
