// The keys a CAF may be signed with: the SII's (IDK 100 certification, 300 production) and, when
// the gateway talks to its built-in sandbox, the key the sandbox signs its CAFs with, which it
// hands over through the SandboxControls port.
import { type RsaPublicKey, SII_CAF_KEYS } from "../dte/verify/timbre.ts";
import type { Deps } from "../ports/deps.ts";
import type { SandboxControls } from "../ports/sandbox.ts";

const withSandbox = new WeakMap<SandboxControls, ReadonlyMap<string, RsaPublicKey>>();

export function trustedCafKeys(deps: Deps): ReadonlyMap<string, RsaPublicKey> {
  const sandbox = deps.sii.sandbox;
  if (!sandbox) return SII_CAF_KEYS;
  let keys = withSandbox.get(sandbox);
  if (!keys) {
    const key = sandbox.cafSigningKey();
    keys = new Map([...SII_CAF_KEYS, [key.idk, key]]);
    withSandbox.set(sandbox, keys);
  }
  return keys;
}
