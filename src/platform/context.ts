// What the Hono context carries through a request.
import type { Plan, Scope } from "../ports/access.ts";
import type { Deps } from "../ports/deps.ts";
import type { QuotaDecision } from "../ports/stores.ts";

export interface Principal {
  tokenId: string;
  account: string;
  scopes: Scope[];
  plan: Plan;
}

export interface AppEnv {
  Variables: {
    deps: Deps;
    requestId: string;
    principal?: Principal;
    /**
     * Set when this call consumed quota, so the response headers can report it; `at`: when its
     * first units were taken (a refund gives them back to that day's window); `kept`: units for work
     * done that no refund gives back (settleCharge).
     */
    quota?: { decision: QuotaDecision; units: number; at?: Date; kept?: number };
    /** Set while a call runs under its Idempotency-Key: the key and the request's keyed fingerprint. */
    idempotent?: { key: string; print: string; leaseMs: number };
  };
}
