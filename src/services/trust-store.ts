// The CAs a received DTE's signer may chain to: the accredited Chilean providers' certificates
// bundled with the gateway, the operator's TRUST_ANCHORS_PEM and, when the gateway talks to its
// built-in sandbox, the sandbox's CA, which it hands over through the SandboxControls port.
import { readDerBlocks } from "../certificates/pem.ts";
import { bundledCertificates } from "../dte/trust/bundled.ts";
import { buildTrustStore, type TrustStore } from "../dte/trust/chain.ts";
import type { Deps } from "../ports/deps.ts";

/** One store per app (its config and sandbox do not change): built on first use, kept for the isolate or process. */
const stores = new WeakMap<Deps, TrustStore>();
let bundled: Promise<readonly Uint8Array[]> | undefined;

export function trustStoreFor(deps: Deps): TrustStore {
  let store = stores.get(deps);
  if (!store) {
    const sandboxCa = deps.sii.sandbox ? (readDerBlocks(deps.sii.sandbox.caCertificate()) ?? []).map((block) => block.der) : [];
    bundled ??= bundledCertificates();
    store = buildTrustStore([...(deps.config.trustAnchors ?? []), ...sandboxCa], bundled);
    stores.set(deps, store);
  }
  return store;
}
