// Issuing API tokens: the secret is random, shown once, and only its hash is kept.
import { randomBase64Url, randomHex, sha256Hex } from "../lib/crypto.ts";
import { ALL_SCOPES, type Plan, type Scope } from "../ports/access.ts";
import type { TokenRecord, TokenStore } from "../ports/stores.ts";

export const DEV_TOKEN_ID = "tok_development";
const DEV_PLAN: Plan = { daily_units: 100_000, monthly_units: 1_000_000 };

export interface NewToken {
  name: string;
  account: string;
  scopes: Scope[];
  plan: Plan;
}

export async function issueToken(store: TokenStore, input: NewToken, now: Date): Promise<{ secret: string; record: TokenRecord }> {
  // 32 random bytes: 256 bits, far above the 128 the design asks for.
  const secret = `sii_${randomBase64Url(32)}`;
  const record: TokenRecord = {
    id: `tok_${randomHex(8)}`,
    ...input,
    blocked: false,
    created_at: now.toISOString(),
    token_hash: await sha256Hex(secret),
    hint: secret.slice(-4),
  };
  await store.put(record);
  return { secret, record };
}

/** Sandbox mode: the development token with every scope, stored under a fixed id. */
export async function seedDevToken(store: TokenStore, secret: string, now: Date): Promise<void> {
  const token_hash = await sha256Hex(secret);
  const existing = await store.getById(DEV_TOKEN_ID);
  if (existing?.token_hash === token_hash && !existing.blocked) return;
  await store.put({
    id: DEV_TOKEN_ID,
    name: "development",
    account: "development",
    scopes: [...ALL_SCOPES],
    plan: DEV_PLAN,
    blocked: false,
    created_at: existing?.created_at ?? now.toISOString(),
    token_hash,
    hint: secret.slice(-4),
  });
}

/** What the admin API shows of a token: never the hash. */
export function publicToken(record: TokenRecord) {
  const { token_hash: _hash, ...rest } = record;
  return rest;
}
