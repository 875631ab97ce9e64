// What a verification costs and the schemas of its verdict, shared by the submissions' `verificar` and the
// inbox of received documents: one check, and the signer's certificate as reported.
import { z } from "@hono/zod-openapi";

/**
 * What checking a block of documents costs, in `envios/verificar`, in the checks `envios/enviar`
 * runs before it sends and in filing received documents: each document's signature, TED, CAF and chain. At 2 a block of 50, 2 000
 * invoices cost 51–80 ms of CPU a unit, three to four times a median unit; at 3 a block of 25, about
 * 14 ms (bench/README.md "CPU per quota unit").
 */
export const VERIFY_WEIGHT = 3;

/** One check of a document or of the envelope. */
export const CheckSchema = z
  .object({
    valido: z.boolean(),
    motivo: z.string().nullable().register(z.globalRegistry, { description: "Why it failed, or a note on how it passed" }),
  })
  .openapi("Check");

/** The signer's certificate as reported, with its chain to the trust store. */
export const Firmante = z
  .object({
    rut: z.string().nullable().register(z.globalRegistry, { description: "The holder's RUT, from the certificate" }),
    nombre: z.string(),
    emisor: z.string().register(z.globalRegistry, { description: "The CA that issued the certificate" }),
    vigente_desde: z.string(),
    vigente_hasta: z.string(),
    vigente_al_firmar: z
      .boolean()
      .nullable()
      .register(z.globalRegistry, { description: "Valid at the signing time the document states (null: it states none)" }),
    confianza: z.enum(["cadena_valida", "emisor_desconocido", "autofirmado", "cadena_invalida"]).register(z.globalRegistry, {
      description:
        "`cadena_valida`: chains to the trust store (the accredited Chilean CAs bundled with the gateway, the operator's TRUST_ANCHORS_PEM, and in sandbox mode the sandbox's CA); `emisor_desconocido`: its issuer is not in the store (real DTEs are signed under class-2 CAs whose certificates are not public); `autofirmado` and `cadena_invalida` make the signature invalid. `cadena_invalida` also when the certificate may not sign DTEs (a CA, a keyUsage or extendedKeyUsage that does not allow signing, an unknown critical extension, an RSA key under 1024 bits, no RUT or more than one) or the stated signing time is out of its bounds (after the verification, before the TED's TSTED or the CAF's FA, more than 7 days before FchEmis); `motivo` names which",
    }),
    cadena: z.array(z.string()).register(z.globalRegistry, { description: "Subject names from the signer up to the trusted CA" }),
    motivo: z.string().nullable(),
  })
  .nullable()
  .openapi("Signer", { description: "The signer's certificate and whether it can be trusted; null when none could be read" });
