// The folio ledger's answer schemas, shared by its own operations (routes/folio-ledger/) and by
// caf/solicitar, whose `ledger: true` answers the ledger as the ledger's POST does. The values
// come from the ledger service (src/services/folio-ledger.ts).
import { z } from "@hono/zod-openapi";
import { envelope } from "../platform/schemas.ts";
import { EXPIRY_WARNING_DAYS } from "../services/folio-ledger.ts";

const Day = z.string().register(z.globalRegistry, { format: "date", example: "2026-11-25" });

export const LedgerRange = z
  .object({
    desde: z.number().int().register(z.globalRegistry, { example: 1 }),
    hasta: z.number().int().register(z.globalRegistry, { example: 100 }),
    usados: z.number().int().register(z.globalRegistry, { description: "Folios handed out", example: 0 }),
    anulados: z.number().int().register(z.globalRegistry, { description: "Folios recorded as annulled at the SII", example: 0 }),
    sin_respuesta: z.number().int().register(z.globalRegistry, {
      description:
        "Folios recorded void by the gateway: a generar attempt that held them stopped (the process ended) without saying whether its answer left, and no retry with its Idempotency-Key took them within 24 h, so they are never handed out again",
      example: 0,
    }),
    disponibles: z.number().int().register(z.globalRegistry, { description: "Folios neither used nor void", example: 100 }),
    autorizado: Day.meta({ description: "The CAF's authorization date (its DA/FA)" }),
    vence: Day.nullable().meta({
      description:
        "Last day its folios may be used: six months after `autorizado` for types 33, 43, 46, 56 and 61; null for the other types, whose CAFs do not expire",
      example: null,
    }),
    bajo_umbral: z.boolean().register(z.globalRegistry, {
      description:
        "The type's folios available (`disponibles` of the ledger, all its ranges not expired) are at or below `umbral`; false without one",
      example: false,
    }),
    por_vencer: z.boolean().register(z.globalRegistry, {
      description: `Not expired yet, but \`vence\` is within ${EXPIRY_WARNING_DAYS} days`,
      example: false,
    }),
  })
  .openapi("FolioLedgerRange");

export const Ledger = z
  .object({
    disponibles: z.number().int().register(z.globalRegistry, { description: "Free folios in the ranges not yet expired", example: 100 }),
    siguiente: z.number().int().nullable().register(z.globalRegistry, {
      description: "The folio handed out next: the lowest free one of a range not expired; null when none is left",
      example: 1,
    }),
    umbral: z.number().int().nullable().register(z.globalRegistry, {
      description: "The low-folio threshold set for this issuer and type (`PUT …/umbral`); null when none",
      example: 50,
    }),
    bajo_umbral: z.boolean().register(z.globalRegistry, { description: "`disponibles` is at or below `umbral`", example: false }),
    rangos: z.array(LedgerRange).register(z.globalRegistry, { description: "The CAF ranges held, lowest first" }),
  })
  .openapi("FolioLedger");

export const LedgerEnvelope = envelope(Ledger);
export const LedgerAdded = Ledger.extend({ rango: LedgerRange.meta({ description: "The range just added" }) }).openapi("FolioLedgerAdded");
export const AddedEnvelope = envelope(LedgerAdded);
