// Parameters shared by many operations, validated the same way everywhere.
import { z } from "@hono/zod-openapi";
import { parseRut } from "../lib/rut.ts";

export const Ambiente = z
  .enum(["0", "1"], { error: "must be 0 (production) or 1 (certification)" })
  .default("0")
  .openapi({ description: "`0` production, `1` certification", example: "0" });

const TRUE = new Set(["true", "1", "yes", "on"]);
const FALSE = new Set(["", "false", "0", "no", "off"]);

/** `true|1|yes|on` (any case) are true; absent, empty and `false|0|no|off` are false. */
export function parseDryRun(value: string | undefined): boolean | null {
  if (value === undefined) return false;
  const v = value.trim().toLowerCase();
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  return null;
}

export const DryRun = z
  .string()
  .optional()
  .refine((v) => parseDryRun(v) !== null, { error: "must be one of true, 1, yes, on, false, 0, no, off" })
  .transform((v) => parseDryRun(v) === true)
  .openapi({
    type: "string",
    description: "`true` validates and previews without contacting the SII; no quota is consumed",
    example: "true",
  });

export function Formato<const T extends readonly [string, ...string[]]>(values: T) {
  return z
    .enum(values, { error: `must be one of ${values.join(", ")}` })
    .default(values[0] as T[number])
    .openapi({ description: `Output format: ${values.join(", ")}` });
}

export const Rut = z
  .string()
  .transform((value, ctx) => {
    const parsed = parseRut(value);
    if (parsed.ok) return parsed.rut;
    ctx.addIssue({ code: "custom", message: `RUT ${parsed.reason}` });
    return z.NEVER;
  })
  .openapi({ type: "string", description: "RUT in the form `XXXXXXXX-K` (check digit verified)", example: "76192083-9" });

export const Periodo = z
  .string()
  .regex(/^\d{4}(0[1-9]|1[0-2])$/, { error: "must be a period YYYYMM (month 01 to 12)" })
  .openapi({ description: "Tax period `YYYYMM`", example: "202401" });
