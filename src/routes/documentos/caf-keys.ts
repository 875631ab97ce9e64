// The keys a CAF may be signed with: the SII's (IDK 100 certification, 300 production) and, when
// the gateway talks to its built-in sandbox, the sandbox's own, which signs the CAFs it grants.
import type { Context } from "hono";
import { type RsaPublicKey, SII_CAF_KEYS } from "../../dte/verify/timbre.ts";
import type { AppEnv } from "../../platform/context.ts";
import { sandboxCafPublicKey } from "../../sandbox/caf.ts";

let withSandbox: ReadonlyMap<string, RsaPublicKey> | undefined;

export function trustedCafKeys(c: Context<AppEnv>): ReadonlyMap<string, RsaPublicKey> {
  if (c.get("deps").sii.mode !== "sandbox") return SII_CAF_KEYS;
  if (!withSandbox) {
    const sandbox = sandboxCafPublicKey();
    withSandbox = new Map([...SII_CAF_KEYS, [sandbox.idk, sandbox]]);
  }
  return withSandbox;
}
