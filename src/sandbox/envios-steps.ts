// An envelope's (envios) way through the SII's processing, one step per ENVIO_STEP_MS: read by the
// upload status services and by the certification process alike.
import type { Envio } from "./records.ts";

/** How long each processing step takes in the sandbox. */
export const ENVIO_STEP_MS = 1000;
const STEPS = ["REC", "SOK", "FOK", "PDR", "EPR"] as const;

/** The envelope's state at `now`: one step per ENVIO_STEP_MS, halting at its rejection. */
export function envioEstado(envio: Envio, now: number): string {
  const step = Math.min(STEPS.length - 1, Math.floor((now - envio.received) / ENVIO_STEP_MS));
  if (envio.rejection) {
    const at = { RSC: 1, RCT: 2, RFR: 2 }[envio.rejection];
    if (step >= at) return envio.rejection;
  }
  return STEPS[step] ?? "REC";
}
