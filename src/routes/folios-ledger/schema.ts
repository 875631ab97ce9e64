// The folio ledger's schemas and what both of its operations share: the account, the view of a
// ledger (never its CAF files), and the sealing of the files it holds.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { open, seal } from "../../lib/secret-box.ts";
import type { AppEnv } from "../../platform/context.ts";
import { Rut } from "../../platform/params.ts";
import { envelope, pathParams } from "../../platform/schemas.ts";
import type { FolioRangeState } from "../../ports.ts";
import { DocumentType } from "../folios/schema.ts";

/** The CAF files the ledger holds carry the range's private key (RSASK): sealed with SECRET_KEY under this purpose. */
const SEAL_PURPOSE = "folio-caf";

export const LedgerParams = pathParams({
  // The example: the sandbox company, type 34, as the example CAF (src/routes/documentos/examples.ts).
  emisor: Rut.openapi({ description: "The issuer the CAFs were granted to", example: "76192083-9" }),
  dte: DocumentType.openapi({ example: 34 }),
});

const Day = z.string().openapi({ format: "date", example: "2026-11-25" });

export const LedgerRange = z
  .object({
    desde: z.number().int().openapi({ example: 1 }),
    hasta: z.number().int().openapi({ example: 100 }),
    usados: z.number().int().openapi({ description: "Folios handed out", example: 0 }),
    anulados: z.number().int().openapi({ description: "Folios recorded as annulled at the SII", example: 0 }),
    disponibles: z.number().int().openapi({ description: "Folios neither used nor annulled", example: 100 }),
    autorizado: Day.openapi({ description: "The CAF's authorization date (its DA/FA)" }),
    vence: Day.nullable().openapi({
      description:
        "Last day its folios may be used: six months after `autorizado` for types 33, 43, 46, 56 and 61; null for the other types, whose CAFs do not expire",
      example: null,
    }),
  })
  .openapi("FolioLedgerRange");

export const Ledger = z
  .object({
    disponibles: z.number().int().openapi({ description: "Free folios in the ranges not yet expired", example: 100 }),
    siguiente: z.number().int().nullable().openapi({
      description: "The folio handed out next: the lowest free one of a range not expired; null when none is left",
      example: 1,
    }),
    rangos: z.array(LedgerRange).openapi({ description: "The CAF ranges held, lowest first" }),
  })
  .openapi("FolioLedger");

export const LedgerEnvelope = envelope(Ledger);
export const LedgerAdded = Ledger.extend({ rango: LedgerRange.openapi({ description: "The range just added" }) }).openapi(
  "FolioLedgerAdded",
);
export const AddedEnvelope = envelope(LedgerAdded);

export function accountOf(c: Context<AppEnv>): string {
  const principal = c.var.principal;
  if (!principal) throw new Error("folio ledger reached without a principal");
  return principal.account;
}

export function sealCaf(c: Context<AppEnv>, caf: string): Promise<string> {
  return seal(c.var.deps.config.secretKey, SEAL_PURPOSE, caf);
}

/** A CAF file the ledger holds, opened; a box that does not open (another SECRET_KEY) is a server fault. */
export async function openCaf(c: Context<AppEnv>, box: string): Promise<string> {
  const caf = await open(c.var.deps.config.secretKey, SEAL_PURPOSE, box);
  if (caf === null) throw new Error("a CAF of the folio ledger does not open with SECRET_KEY");
  return caf;
}

/** The ledger as answered: the ranges expired by `today` count for nothing available. */
export function ledgerView(ranges: readonly FolioRangeState[], today: string): z.infer<typeof Ledger> {
  const usable = ranges.filter((r) => r.vence === null || r.vence >= today);
  return {
    disponibles: usable.reduce((n, r) => n + r.disponibles, 0),
    siguiente: usable.find((r) => r.siguiente !== null)?.siguiente ?? null,
    rangos: ranges.map(({ siguiente: _next, ...range }) => range),
  };
}
