// SII web sessions (design §5): cached per account, RUT, ambiente and credential for up to 2 h,
// sealed at rest; calls take turns per session and per RUT in this process (turns.ts) and are paced
// per RUT across processes, each within a bounded wait; a session found expired is logged out, and
// one the SII has dropped is re-established once.

import { ApiError } from "../lib/api-error.ts";
import { keyedHash, open, seal } from "../lib/secret-box.ts";
import type { SessionStore } from "../ports/stores.ts";
import { CookieJar } from "./cookies.ts";
import type { Ambiente } from "./hosts.ts";
import type { SiiContext } from "./http.ts";
import { logout } from "./login.ts";
import { inTurn, retryAfter } from "./turns.ts";

export const SESSION_MAX_MS = 2 * 60 * 60 * 1000;
/** Stored a while past their use, so an expired session can still be found and logged out. */
const LOGOUT_GRACE_MS = 30 * 60 * 1000;
const SEAL_PURPOSE = "sii-session";

export interface SessionEnv {
  ctx: SiiContext;
  sessions: SessionStore;
  secretKey: string;
  now: () => Date;
  /** Least time between two SII calls for one RUT. */
  pacingMs: number;
  /** Longest a call waits, for its turn and for pacing together, before it is refused (429). */
  waitMs: number;
}

export interface SessionOwner {
  account: string;
  rut: string;
  ambiente: Ambiente;
  kind: "clave" | "cert";
  /** What proves the credential (the clave, or the certificate's fingerprint): a different one never reuses a session. */
  proof: string;
}

/** Thrown by a session's user when the SII shows its login wall instead of the page asked for. */
export class SessionExpired extends Error {
  /** What the SII showed instead (for `details` when a fresh session meets it too). */
  readonly siiText: string | null;

  constructor(siiText: string | null = null) {
    super("The SII session has expired");
    this.siiText = siiText;
  }
}

interface SealedSession {
  created: number;
  cookies: ReturnType<CookieJar["toJSON"]>;
}

export async function sessionKey(env: SessionEnv, owner: SessionOwner): Promise<string> {
  const id = [owner.account, owner.rut, owner.ambiente, owner.kind, owner.proof].join("\u0000");
  return `${owner.rut}|${await keyedHash(env.secretKey, id)}`;
}

/** What one call has waited so far (for its turn, for pacing): all its waits share `waitMs`. */
interface Waited {
  ms: number;
}

async function pace(env: SessionEnv, rut: string, waited: Waited): Promise<void> {
  if (env.pacingMs <= 0) return; // nothing to space out (the sandbox): skip the store's round trip
  const left = Math.max(0, env.waitMs - waited.ms);
  // A slot further off than the call may still wait is not booked: refused calls never push
  // the taxpayer's next slot later for everyone else.
  const wait = await env.sessions.reserve(`${rut}|pace`, env.pacingMs, env.now(), left);
  if (wait > left) {
    throw new ApiError(
      429,
      "SII_RATE_LIMIT",
      `Calls to the SII for this taxpayer are spaced ${env.pacingMs} ms apart and the next free slot is ${wait} ms away; retry then`,
      { headers: { "Retry-After": retryAfter(wait) }, details: { reason: "pacing", wait_ms: wait } },
    );
  }
  if (wait <= 0) return;
  waited.ms += wait;
  await new Promise((resolve) => setTimeout(resolve, wait));
}

interface OpenSession {
  jar: CookieJar;
  created: number;
  /** The cookies as stored, to store them again only when the SII changed them. */
  stored: string;
}

/**
 * Sessions this isolate opened or unsealed lately, so a run of calls in one session skips the
 * store's read, the unsealing and the cookies' parse (on Node with the memory store a session's
 * use went from about 33 to 7 µs of CPU; on Workers it saves a Durable Object round trip). Per
 * store, held in memory only, for at most `RECALL_MS` and
 * `RECALL_ENTRIES` sessions; keyed by the session key, which hashes the account, RUT, ambiente and
 * credential, so no other account or credential can reach an entry. The store stays the truth
 * across isolates: a session another isolate replaced meets the SII's login wall here at most
 * `RECALL_MS` later and is re-established as any expired one is.
 */
const recalled = new WeakMap<SessionStore, Map<string, { created: number; stored: string; until: number }>>();
export const RECALL_MS = 60_000;
export const RECALL_ENTRIES = 1_000;

function recallsOf(env: SessionEnv) {
  let recalls = recalled.get(env.sessions);
  if (!recalls) {
    recalls = new Map();
    recalled.set(env.sessions, recalls);
  }
  return recalls;
}

function recall(env: SessionEnv, key: string): OpenSession | null {
  const recalls = recallsOf(env);
  const entry = recalls.get(key);
  if (!entry) return null;
  const now = env.now().getTime();
  // Past its bound, or too old to use at all (load() then logs it out): read from the store.
  if (now >= entry.until || now - entry.created >= SESSION_MAX_MS) {
    recalls.delete(key);
    return null;
  }
  const jar = CookieJar.fromJSON(JSON.parse(entry.stored) as ReturnType<CookieJar["toJSON"]>, () => env.now().getTime());
  return { jar, created: entry.created, stored: entry.stored };
}

function remember(env: SessionEnv, key: string, session: { created: number; stored: string }): void {
  const recalls = recallsOf(env);
  recalls.delete(key); // re-inserted last: the first in the map is the one to drop
  if (recalls.size >= RECALL_ENTRIES) {
    const oldest = recalls.keys().next().value;
    if (oldest !== undefined) recalls.delete(oldest);
  }
  recalls.set(key, { created: session.created, stored: session.stored, until: env.now().getTime() + RECALL_MS });
}

async function forget(env: SessionEnv, key: string): Promise<void> {
  recallsOf(env).delete(key);
  await env.sessions.delete(key);
}

async function load(env: SessionEnv, key: string, kind: SessionOwner["kind"]): Promise<OpenSession | null> {
  const sealed = await env.sessions.get(key, env.now());
  const text = sealed ? await open(env.secretKey, SEAL_PURPOSE, sealed) : null;
  if (!text) return null;
  const session = JSON.parse(text) as SealedSession;
  const jar = CookieJar.fromJSON(session.cookies, () => env.now().getTime());
  if (env.now().getTime() - session.created < SESSION_MAX_MS) {
    const open = { jar, created: session.created, stored: JSON.stringify(session.cookies) };
    remember(env, key, open);
    return open;
  }
  // Too old to trust: close it at the SII (sessions per RUT are limited) and start again.
  await forget(env, key);
  await logout(env.ctx, jar, kind).catch(() => undefined);
  return null;
}

/** Stores the session; returns what was stored of its cookies. */
async function save(env: SessionEnv, key: string, jar: CookieJar, created: number): Promise<string> {
  const session: SealedSession = { created, cookies: jar.toJSON() };
  const remaining = SESSION_MAX_MS - (env.now().getTime() - created);
  await env.sessions.put(
    key,
    await seal(env.secretKey, SEAL_PURPOSE, JSON.stringify(session)),
    Math.max(1, remaining) + LOGOUT_GRACE_MS,
    env.now(),
  );
  const stored = JSON.stringify(session.cookies);
  remember(env, key, { created, stored });
  return stored;
}

/**
 * Runs `use` inside the owner's SII session: a cached one, or a new one from `login`. When `use`
 * throws SessionExpired, the session is dropped and `use` runs once more in a fresh one. A call
 * that would wait longer than `env.waitMs` for its turn and pacing is refused (429 SII_RATE_LIMIT).
 */
export async function withWebSession<T>(
  env: SessionEnv,
  owner: SessionOwner,
  login: () => Promise<CookieJar>,
  use: (jar: CookieJar) => Promise<T>,
): Promise<T> {
  const key = await sessionKey(env, owner);
  // The session key is the lane: one call at a time per session, never behind another account's.
  return inTurn({ rut: owner.rut, account: owner.account, lane: key }, env.waitMs, async (turnMs) => {
    const waited: Waited = { ms: turnMs };
    const fresh = async (): Promise<OpenSession> => {
      await pace(env, owner.rut, waited);
      const jar = await login();
      const created = env.now().getTime();
      return { jar, created, stored: await save(env, key, jar, created) };
    };
    const attempt = async (session: OpenSession) => {
      await pace(env, owner.rut, waited);
      const result = await use(session.jar);
      // Keep cookies the SII changed; an unchanged session needs no new write (its expiry is fixed by `created`).
      if (JSON.stringify(session.jar.toJSON()) !== session.stored) await save(env, key, session.jar, session.created);
      return result;
    };
    const session = recall(env, key) ?? (await load(env, key, owner.kind)) ?? (await fresh());
    try {
      return await attempt(session);
    } catch (err) {
      if (!(err instanceof SessionExpired)) throw err;
      await forget(env, key);
    }
    try {
      return await attempt(await fresh());
    } catch (err) {
      if (!(err instanceof SessionExpired)) throw err;
      // A session opened a moment ago is not expired: the SII is answering something else.
      await forget(env, key);
      throw new ApiError(
        502,
        "SII_GATEWAY_ERROR",
        "The SII did not answer the request in a fresh session (it showed a login page or an unexpected answer)",
        {
          details: { sii_message: err.siiText ?? "(the login page)" },
        },
      );
    }
  });
}
