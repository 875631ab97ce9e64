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

/** A range is flagged `por_vencer` this many days before its `vence`. */
export const EXPIRY_WARNING_DAYS = 30;

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
    bajo_umbral: z.boolean().openapi({
      description:
        "The type's folios available (`disponibles` of the ledger, all its ranges not expired) are at or below `umbral`; false without one",
      example: false,
    }),
    por_vencer: z.boolean().openapi({
      description: `Not expired yet, but \`vence\` is within ${EXPIRY_WARNING_DAYS} days`,
      example: false,
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
    umbral: z.number().int().nullable().openapi({
      description: "The low-folio threshold set for this issuer and type (`PUT …/umbral`); null when none",
      example: 50,
    }),
    bajo_umbral: z.boolean().openapi({ description: "`disponibles` is at or below `umbral`", example: false }),
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

/** `day` (YYYY-MM-DD) plus `days`. */
const plusDays = (day: string, days: number): string =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/**
 * The ledger as answered: the ranges expired by `today` count for nothing available. With an
 * `umbral`, every range is flagged `bajo_umbral` when what the whole type has left is at or below
 * it; a range whose `vence` falls within EXPIRY_WARNING_DAYS of `today` is `por_vencer`.
 */
export function ledgerView(ranges: readonly FolioRangeState[], today: string, umbral: number | null): z.infer<typeof Ledger> {
  const usable = ranges.filter((r) => r.vence === null || r.vence >= today);
  const disponibles = usable.reduce((n, r) => n + r.disponibles, 0);
  const low = umbral !== null && disponibles <= umbral;
  const soon = plusDays(today, EXPIRY_WARNING_DAYS);
  return {
    disponibles,
    siguiente: usable.find((r) => r.siguiente !== null)?.siguiente ?? null,
    umbral,
    bajo_umbral: low,
    rangos: ranges.map(({ siguiente: _next, ...range }) => ({
      ...range,
      bajo_umbral: low,
      por_vencer: range.vence !== null && range.vence >= today && range.vence <= soon,
    })),
  };
}

/** The account's ledger of `emisor` and `dte` as answered, read with its threshold. */
export async function readLedger(c: Context<AppEnv>, emisor: string, dte: number, today: string) {
  const store = c.var.deps.folios;
  const [ranges, umbral] = await Promise.all([store.ranges(accountOf(c), emisor, dte), store.threshold(accountOf(c), emisor, dte)]);
  return { ranges, view: ledgerView(ranges, today, umbral) };
}
