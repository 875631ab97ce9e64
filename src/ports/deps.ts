// Interfaces only: what the app is handed by its entry file (stores, transport, clock, logger, config).

import type { InboxStore } from "./inbox.ts";
import type { JobStore } from "./jobs.ts";
import type { CacheStore, FolioLedgerStore, IdempotencyStore, QuotaStore, SessionStore, SettingsStore, TokenStore } from "./stores.ts";
import type { SiiTransport } from "./transport.ts";
import type { WebhookSender } from "./webhooks.ts";

export interface Clock {
  now(): Date;
}

export interface LogRecord {
  level: "info" | "warn" | "error";
  msg: string;
  [field: string]: unknown;
}

export interface Logger {
  log(record: LogRecord): void;
}

export interface Config {
  upstream: "sandbox" | "live";
  /** Unset: the admin API does not exist (404). */
  adminToken?: string;
  /** Sandbox mode only: the development token seeded with every scope. */
  devToken?: string;
  maxBodyBytes: number;
  /** Whether proxies on loopback/private/link-local addresses may be used (always in sandbox mode). */
  allowPrivateProxy: boolean;
  /** Workers: the Node egress for certificate logins and proxies. Node: the secret its egress endpoint accepts. */
  egressUrl?: string;
  egressSecret?: string;
  /** Server secret for encrypting stored secrets and keying credential fingerprints. */
  secretKey: string;
  /** How long one SII call may take before it is reported as failed (default 30 s). */
  siiTimeoutMs?: number;
  /** How long an SII call may wait for its turn and the taxpayer's pacing before it is refused with 429 (default 5 s). */
  siiMaxWaitMs?: number;
  /** Origins that get CORS headers and preflight answers; none when unset (CORS off). */
  corsOrigins?: readonly string[];
  /** The operator's extra trust anchors and intermediates for DTE signers (DER), from TRUST_ANCHORS_PEM. */
  trustAnchors?: readonly Uint8Array[];
  /** Live Idempotency-Key answers an account may hold (default IDEMPOTENCY_RECORDS_MAX in src/platform/schemas.ts). */
  idempotencyMaxRecords?: number;
  /**
   * How long an attempt under an Idempotency-Key (and a folio hold) is given before a retry may take it over
   * (default 5 minutes, longer than any SII call may take; IDEMPOTENCY_LEASE_MS).
   */
  idempotencyLeaseMs?: number;
  /** How long a runner holds a job before another may take it (default JOB_LEASE_MS, src/services/job-runner.ts: 60 s). */
  jobLeaseMs?: number;
}

export interface Deps {
  tokens: TokenStore;
  quota: QuotaStore;
  settings: SettingsStore;
  idempotency: IdempotencyStore;
  sessions: SessionStore;
  cache: CacheStore;
  folios: FolioLedgerStore;
  jobs: JobStore;
  /** The documents the account's taxpayers received. */
  inbox: InboxStore;
  sii: SiiTransport;
  /** Webhook deliveries: the only requests the gateway sends anywhere but the SII. */
  webhooks: WebhookSender;
  clock: Clock;
  log: Logger;
  config: Config;
}
