// The sandbox's test taxpayers. Fake people and companies with documented claves; their
// certificates (issued by the sandbox's own CA) are in ./credentials/.
import type { SANDBOX_TAXPAYER_CERTS } from "./credentials/index.ts";

export interface SandboxTaxpayer {
  rut: string;
  razon_social: string;
  kind: "company" | "person";
  clave: string;
  /** RUT of the person whose certificate acts for this taxpayer (itself, for a person). */
  certificate_of: keyof typeof SANDBOX_TAXPAYER_CERTS;
  /** Whether the SII has it as an electronic-document issuer (it may request folios). */
  dte_issuer: boolean;
}

export const SANDBOX_TAXPAYERS: readonly SandboxTaxpayer[] = [
  {
    rut: "76192083-9",
    razon_social: "Comercial Sandbox SpA",
    kind: "company",
    clave: "sandbox76",
    certificate_of: "11111111-1",
    dte_issuer: true,
  },
  {
    rut: "11111111-1",
    razon_social: "Juana Pérez Soto",
    kind: "person",
    clave: "sandbox11",
    certificate_of: "11111111-1",
    dte_issuer: false,
  },
  {
    rut: "22222222-2",
    razon_social: "Pedro Muñoz Rojas",
    kind: "person",
    clave: "sandbox22",
    certificate_of: "22222222-2",
    dte_issuer: true,
  },
];

export function sandboxTaxpayer(rut: string): SandboxTaxpayer | undefined {
  return SANDBOX_TAXPAYERS.find((t) => t.rut === rut);
}

/** Whether the holder of a certificate (by RUT) may act for a taxpayer at the SII. */
export function mayActFor(holder: string, taxpayer: string): boolean {
  return sandboxTaxpayer(taxpayer)?.certificate_of === holder;
}
