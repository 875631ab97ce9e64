// The API tokens the operator administers (the token store, `deps.tokens`), with no HTTP: issue,
// list, show with usage, block or unblock, revoke. None is shown with its hash; only issuing shows
// the secret. The operator is no account, so these take only the deps of the Caller.
import type { Caller } from "../platform/caller.ts";
import { ApiError } from "../platform/errors.ts";
import { usageView } from "../platform/rate-headers.ts";
import { issueToken, type NewToken, publicToken } from "../platform/tokens.ts";
import type { Plan } from "../ports/access.ts";
import type { TokenRecord } from "../ports/stores.ts";

type Operator = Pick<Caller, "deps">;

async function findToken({ deps }: Operator, id: string): Promise<TokenRecord> {
  const record = await deps.tokens.getById(id);
  if (!record) throw new ApiError(404, "HTTP_404", `No token ${id}`);
  return record;
}

/** A token's quota usage in the current UTC day and month (also what a token's own usage shows). */
export async function tokenUsage({ deps }: Operator, token: { id: string; plan: Plan }) {
  return usageView(await deps.quota.peek(token.id, token.plan, deps.clock.now()));
}

/** Issues a token; its secret (`token`) is in this answer only. */
export async function createToken(operator: Operator, input: NewToken) {
  const { secret, record } = await issueToken(operator.deps.tokens, input, operator.deps.clock.now());
  return { token: secret, ...publicToken(record) };
}

/** Every token, oldest first. */
export async function listTokens({ deps }: Operator) {
  const tokens = (await deps.tokens.list()).sort((a, b) => a.created_at.localeCompare(b.created_at));
  return { tokens: tokens.map(publicToken) };
}

/** One token with its usage. */
export async function tokenWithUsage(operator: Operator, id: string) {
  const record = await findToken(operator, id);
  return { ...publicToken(record), usage: await tokenUsage(operator, record) };
}

/** Blocks (its calls get 403 ACCOUNT_BLOCKED) or unblocks a token; nothing else changes. */
export async function setBlocked(operator: Operator, id: string, blocked: boolean) {
  const updated = { ...(await findToken(operator, id)), blocked };
  await operator.deps.tokens.put(updated);
  return publicToken(updated);
}

/** Deletes a token for good: its secret stops working at once. */
export async function revokeToken(operator: Operator, id: string) {
  const record = await findToken(operator, id);
  await operator.deps.tokens.delete(record.id);
  return publicToken(record);
}
