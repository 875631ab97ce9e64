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
  /** What Mi SII shows of it (private data). */
  ficha: {
    calle: string;
    numero: string;
    comuna: string;
    region: string;
    telefono: string;
    email: string;
    giros: { codigo: string; descripcion: string }[];
  };
}

export const SANDBOX_TAXPAYERS: readonly SandboxTaxpayer[] = [
  {
    rut: "76192083-9",
    razon_social: "Comercial Sandbox SpA",
    kind: "company",
    clave: "sandbox76",
    certificate_of: "11111111-1",
    dte_issuer: true,
    ficha: {
      calle: "AV. PROVIDENCIA",
      numero: "1234",
      comuna: "PROVIDENCIA",
      region: "METROPOLITANA",
      telefono: "+56 2 2345 6789",
      email: "contacto@sandbox.example",
      giros: [
        { codigo: "479100", descripcion: "VENTA AL POR MENOR POR CORREO, POR INTERNET Y VIA TELEFONICA" },
        { codigo: "620200", descripcion: "ACTIVIDADES DE CONSULTORIA DE INFORMATICA Y DE GESTION DE INSTALACIONES INFORMATICAS" },
      ],
    },
  },
  {
    rut: "11111111-1",
    razon_social: "Juana Pérez Soto",
    kind: "person",
    clave: "sandbox11",
    certificate_of: "11111111-1",
    dte_issuer: false,
    ficha: {
      calle: "LOS ALERCES",
      numero: "55",
      comuna: "ÑUÑOA",
      region: "METROPOLITANA",
      telefono: "+56 9 8765 4321",
      email: "juana.perez@sandbox.example",
      giros: [],
    },
  },
  {
    rut: "22222222-2",
    razon_social: "Pedro Muñoz Rojas",
    kind: "person",
    clave: "sandbox22",
    certificate_of: "22222222-2",
    dte_issuer: true,
    ficha: {
      calle: "CALLE LARGA",
      numero: "890",
      comuna: "VALPARAISO",
      region: "VALPARAISO",
      telefono: "+56 9 1234 5678",
      email: "pedro.munoz@sandbox.example",
      giros: [{ codigo: "731001", descripcion: "SERVICIOS DE PUBLICIDAD PRESTADOS POR EMPRESAS" }],
    },
  },
];

export function sandboxTaxpayer(rut: string): SandboxTaxpayer | undefined {
  return SANDBOX_TAXPAYERS.find((t) => t.rut === rut);
}

/** Whether the holder of a certificate (by RUT) may act for a taxpayer at the SII. */
export function mayActFor(holder: string, taxpayer: string): boolean {
  return sandboxTaxpayer(taxpayer)?.certificate_of === holder;
}

/** The taxpayers a person acts for as electronic representative (not themselves). */
export function representedBy(holder: string): SandboxTaxpayer[] {
  return SANDBOX_TAXPAYERS.filter((t) => t.certificate_of === holder && t.rut !== holder);
}
