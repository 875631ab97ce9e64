// Settings every entry reads from its environment (Worker vars/secrets, process.env on Node and Lambda).
import { readDerBlocks } from "./certificates/pem.ts";
import { parseCorsOrigins } from "./platform/cors.ts";
import type { Clock, Config, Logger } from "./ports/deps.ts";
import type { SiiTransport } from "./ports/transport.ts";
import { parseUpstream } from "./sii/transport.ts";

export type EnvVars = Record<string, unknown>;

/**
 * The body limit when MAX_BODY_BYTES is not set. The SII's largest envelope (2 000 DTEs, EnvioDTE_v10.xsd)
 * is 13 to 19 MB in base64, and the `xml` field admits 24 MiB: 32 MiB takes it with a certificate or a
 * logo beside it. Memory stays bounded by the body: reading an envelope of 2 000 documents (12 MB)
 * peaked at ~130 MiB of heap and ~115 MiB of buffers on Node, about 20 times the body, and the counts
 * (documents, lines) are checked before the costlier work.
 */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
/**
 * The Worker's default: an isolate has 128 MB of memory (its request bodies may be up to 100 MB on
 * the paid plan, so memory binds first). At ~20 times the body, 10 MiB is what an isolate can read.
 */
export const WORKERS_MAX_BODY_BYTES = 10 * 1024 * 1024;
export const MIN_ADMIN_TOKEN = 32;
/** Sandbox mode only, so a fresh clone runs without setup. Live mode must set SECRET_KEY. */
const SANDBOX_SECRET_KEY = "sandbox-only-secret-key-never-used-in-live-mode";

function text(env: EnvVars, name: string): string | undefined {
  const value = env[name];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** TRUST_ANCHORS_PEM: one or more PEM certificates (CAs an operator trusts for DTE signers, and their intermediates). */
function trustAnchors(pem: string | undefined): Uint8Array[] | undefined {
  if (pem === undefined) return undefined;
  const blocks = readDerBlocks(pem);
  const certificates = blocks?.filter((block) => block.label === "CERTIFICATE").map((block) => block.der) ?? [];
  if (!blocks || certificates.length === 0 || certificates.length !== blocks.length)
    throw new Error("TRUST_ANCHORS_PEM must hold only PEM certificates (-----BEGIN CERTIFICATE-----)");
  return certificates;
}

/** The settings of `env`; `defaultMaxBodyBytes` is the runtime's body limit when MAX_BODY_BYTES is not set. */
export function configFromEnv(env: EnvVars, defaultMaxBodyBytes = DEFAULT_MAX_BODY_BYTES): Config {
  const upstream = parseUpstream(text(env, "SII_UPSTREAM"));
  const maxBody = text(env, "MAX_BODY_BYTES");
  const maxBodyBytes = maxBody === undefined ? defaultMaxBodyBytes : Number(maxBody);
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes <= 0) throw new Error("MAX_BODY_BYTES must be a positive integer");
  const egressSecret = text(env, "EGRESS_SECRET");
  if (egressSecret !== undefined && egressSecret.length < 32) throw new Error("EGRESS_SECRET must be at least 32 characters");
  const secretKey = text(env, "SECRET_KEY") ?? (upstream === "sandbox" ? SANDBOX_SECRET_KEY : undefined);
  const timeout = text(env, "SII_TIMEOUT_MS");
  const siiTimeoutMs = timeout === undefined ? undefined : Number(timeout);
  if (siiTimeoutMs !== undefined && (!Number.isSafeInteger(siiTimeoutMs) || siiTimeoutMs < 100))
    throw new Error("SII_TIMEOUT_MS must be a whole number of milliseconds, at least 100");
  const maxWait = text(env, "SII_MAX_WAIT_MS");
  const siiMaxWaitMs = maxWait === undefined ? undefined : Number(maxWait);
  if (siiMaxWaitMs !== undefined && (!Number.isSafeInteger(siiMaxWaitMs) || siiMaxWaitMs < 100))
    throw new Error("SII_MAX_WAIT_MS must be a whole number of milliseconds, at least 100");
  const idempotencyLeaseMs = millis(env, "IDEMPOTENCY_LEASE_MS", 1000);
  const jobLeaseMs = millis(env, "JOB_LEASE_MS", 1000);
  if (!secretKey || secretKey.length < 32) throw new Error("SECRET_KEY must be set to at least 32 characters when SII_UPSTREAM=live");
  // The admin token mints API tokens with every scope: a short one could be guessed.
  const adminToken = text(env, "ADMIN_TOKEN");
  if (adminToken !== undefined && adminToken.length < MIN_ADMIN_TOKEN)
    throw new Error(`ADMIN_TOKEN must be at least ${MIN_ADMIN_TOKEN} characters (for example: openssl rand -base64 32)`);
  return {
    upstream,
    secretKey,
    adminToken,
    // A development token is a sandbox convenience; live mode never has one.
    devToken: upstream === "sandbox" ? text(env, "DEV_API_TOKEN") : undefined,
    maxBodyBytes,
    egressUrl: text(env, "EGRESS_URL"),
    egressSecret: text(env, "EGRESS_SECRET"),
    allowPrivateProxy: upstream === "sandbox" || text(env, "ALLOW_PRIVATE_PROXY") === "true",
    siiTimeoutMs,
    siiMaxWaitMs,
    idempotencyLeaseMs,
    jobLeaseMs,
    corsOrigins: parseCorsOrigins(text(env, "CORS_ORIGINS")),
    trustAnchors: trustAnchors(text(env, "TRUST_ANCHORS_PEM")),
  };
}

/** A whole number of milliseconds of at least `min` from `name`, or undefined when unset. */
function millis(env: Record<string, unknown>, name: string, min: number): number | undefined {
  const value = text(env, name);
  if (value === undefined) return undefined;
  const ms = Number(value);
  if (!Number.isSafeInteger(ms) || ms < min) throw new Error(`${name} must be a whole number of milliseconds, at least ${min}`);
  return ms;
}

export const systemClock: Clock = { now: () => new Date() };

/** The gateway's clock: the system's, moved ahead with the simulator's by `POST /sandbox/v1/clock` in sandbox mode. */
export function clockFor(sii: SiiTransport): Clock {
  const sandbox = sii.sandbox;
  return sandbox ? { now: () => new Date(Date.now() + sandbox.clockOffset()) } : systemClock;
}

/** One JSON line per record; records never carry request bodies or credentials. */
export const consoleLogger: Logger = {
  log(record) {
    const line = JSON.stringify({ time: new Date().toISOString(), ...record });
    if (record.level === "error") console.error(line);
    else console.log(line);
  },
};
