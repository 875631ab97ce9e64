// The document operations' way to the CAF keys (src/services/caf-keys.ts) from a request: kept
// with this signature for generar and the folio ledger, which take it from here.
import type { Context } from "hono";
import type { RsaPublicKey } from "../../dte/verify/timbre.ts";
import type { AppEnv } from "../../platform/context.ts";
import { trustedCafKeys as cafKeysOf } from "../../services/caf-keys.ts";

export function trustedCafKeys(c: Context<AppEnv>): ReadonlyMap<string, RsaPublicKey> {
  return cafKeysOf(c.get("deps"));
}
