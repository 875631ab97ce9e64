// The simulator's side of the SandboxControls port: what the gateway's /sandbox/v1 routes may
// ask of it (faults, recorded answers to replay, call counts, its test credentials, its CAF-signing key), and nothing else.
import type { SandboxControls, SandboxCredentials } from "../ports/sandbox.ts";
import type { Sandbox } from "./app.ts";
import { SANDBOX_BHE } from "./bhe.ts";
import { SANDBOX_CA, SANDBOX_CAF_SIGNER, SANDBOX_TAXPAYER_CERTS } from "./credentials/index.ts";
import { sandboxCafPublicKey } from "./folios-caf.ts";
import { SANDBOX_TAXPAYERS } from "./taxpayers.ts";

function credentials(): SandboxCredentials {
  const taxpayers = SANDBOX_TAXPAYERS.map((t) => {
    const cert = SANDBOX_TAXPAYER_CERTS[t.certificate_of];
    return {
      rut: t.rut,
      razon_social: t.razon_social,
      kind: t.kind,
      clave: t.clave,
      certificate_holder: t.certificate_of,
      samples: { bhe_codes: SANDBOX_BHE.filter((slip) => slip.emisor === t.rut).map((slip) => slip.codigo) },
      cert: { "cert-data": cert.certPem, "pkey-data": cert.keyPem },
      pfx: { "pfx-data": cert.modernPfxBase64, passphrase: cert.passphrase },
      pfx_legacy: { "pfx-data": cert.legacyPfxBase64, passphrase: cert.passphrase },
    };
  });
  const caf_signing_key = { idk: SANDBOX_CAF_SIGNER.idk, public_key: SANDBOX_CAF_SIGNER.publicKeyPem };
  return { taxpayers, ca_certificate: SANDBOX_CA.cert, caf_signing_key };
}

export function sandboxControls(sandbox: Sandbox): SandboxControls {
  const { state } = sandbox;
  return {
    faults: () => state.faults.map((f) => ({ ...f })),
    addFault: (fault) => {
      state.faults.push({ ...fault });
    },
    clearFaults: () => {
      state.faults = [];
    },
    services: () => sandbox.services(),
    replays: () => state.replays.map((r) => ({ ...r, headers: { ...r.headers } })),
    addReplay: (replay) => {
      state.replays.push({ ...replay, headers: { ...replay.headers }, body: replay.body.slice() });
    },
    clearReplays: () => {
      state.replays = [];
    },
    calls: () => new Map(state.calls),
    resetCalls: () => state.calls.clear(),
    clockOffset: () => state.clockOffset,
    advanceClock: (ms) => {
      state.clockOffset += Math.max(0, ms);
    },
    credentials,
    cafSigningKey: sandboxCafPublicKey,
    caCertificate: () => SANDBOX_CA.cert,
  };
}
