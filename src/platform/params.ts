// Parameters shared by many operations, validated the same way everywhere. Every rule is written
// into the schema the OpenAPI document is generated from, so the document is as strict as the
// server; where a rule cannot be a JSON Schema keyword (a RUT's check digit), the description says so.
import { z } from "@hono/zod-openapi";
import { parseRut } from "../lib/rut.ts";

/**
 * The longest value each kind of request string takes, in characters: every string a request
 * carries has one, in the schema and so in the document, so no field takes megabytes that a
 * handler could copy into its answer. Sized well above what the field holds, and below the body
 * limit (`MAX_BODY_BYTES`, 32 MiB by default; 10 MiB on Workers).
 */
export const MAX_CHARS = {
  /** `76.192.083-9`: 8 digits, 2 dots, a hyphen and the check digit. */
  rut: 12,
  /** `YYYYMM`. */
  periodo: 6,
  /** `YYYY-MM-DD`. */
  date: 10,
  /** A whole number in a path or query (leading zeros are read). */
  integer: 20,
  /** A PEM certificate with its chain (up to 64 certificates of a few KiB). */
  pemCertificate: 256 * 1024,
  /** A PEM private key (an RSA 4096-bit key is about 3.3 KiB; encrypted, a little more). */
  pemKey: 16 * 1024,
  /** A PKCS#12 container in base64 (a certificate, its key and chain: some KiB). */
  pfx: 256 * 1024,
  /** A passphrase of a key or a PFX. */
  passphrase: 1024,
  /** A CAF file (AUTORIZACION, about 2 KiB), as XML or base64. */
  caf: 64 * 1024,
  /**
   * A DTE, EnvioDTE or EnvioBOLETA in base64. The SII's largest envelope, 2 000 DTEs of some 5 to
   * 7 KB each, is 13 to 19 MB in base64: inside the default body limit (32 MiB); on Workers the
   * limit is 10 MiB (an isolate's memory), where an EnvioBOLETA's 500 fit.
   */
  xml: 24 * 1024 * 1024,
  /** A logo image (JPEG or PNG) in base64. */
  image: 2 * 1024 * 1024,
  /** A name or a search text. */
  name: 200,
} as const;

export const Ambiente = z
  .enum(["0", "1"], { error: "must be 0 (production) or 1 (certification)" })
  .default("0")
  .register(z.globalRegistry, {
    description: "`0` production (default), `1` certification (the SII's `maullin` test hosts)",
    example: "0",
  });

/** The spellings of `dry_run`, in any letter case. */
export const DRY_RUN_TRUE = ["true", "1", "yes", "on"] as const;
export const DRY_RUN_FALSE = ["false", "0", "no", "off"] as const;

/** A pattern matching `words` in any letter case (JSON Schema patterns have no case-insensitive flag). */
function anyCase(words: readonly string[]): string {
  const word = (w: string) => [...w].map((ch) => (/[a-z]/.test(ch) ? `[${ch.toUpperCase()}${ch}]` : ch)).join("");
  return `^(?:${words.map(word).join("|")})$`;
}

/** `dry_run`'s accepted values as a pattern: the eight spellings, any letter case, nothing around them. */
export const DRY_RUN_PATTERN = anyCase([...DRY_RUN_TRUE, ...DRY_RUN_FALSE]);
const DRY_RUN_FORM = new RegExp(DRY_RUN_PATTERN);

/** `true|1|yes|on` (any case) are true; absent and `false|0|no|off` (any case) are false; anything else null. */
export function parseDryRun(value: string | undefined): boolean | null {
  if (value === undefined) return false;
  if (!DRY_RUN_FORM.test(value)) return null;
  return (DRY_RUN_TRUE as readonly string[]).includes(value.toLowerCase());
}

export const DryRun = z
  .string()
  .max(5)
  .regex(DRY_RUN_FORM, { error: `must be one of ${[...DRY_RUN_TRUE, ...DRY_RUN_FALSE].join(", ")} (any letter case)` })
  .optional()
  .transform((v) => parseDryRun(v) === true)
  .register(z.globalRegistry, {
    description:
      "`true`, `1`, `yes` or `on` (any letter case) validates and previews without contacting the SII; no quota is consumed. " +
      "`false`, `0`, `no`, `off` or absent: the call runs",
    example: "true",
  });

export function Formato<const T extends readonly [string, ...string[]]>(values: T) {
  return z
    .enum(values, { error: `must be one of ${values.join(", ")}` })
    .default(values[0] as T[number])
    .register(z.globalRegistry, { description: `Output format: ${values.map((v) => `\`${v}\``).join(", ")} (default \`${values[0]}\`)` });
}

/**
 * The forms of a RUT the server reads (src/lib/rut.ts parseRut): 1 to 8 body digits, with or
 * without thousands dots, a hyphen, and the check digit (a digit, `K` or `k`). Leading zeros are
 * read and dropped. The check digit itself (modulo 11) is verified after the pattern.
 */
export const RUT_PATTERN = "^(?:\\d{1,2}(?:\\.?\\d{3}){0,2}|\\d{1,8})-[\\dkK]$";
const RUT_FORM = new RegExp(RUT_PATTERN);

const RUT_DESCRIPTION =
  "RUT as `76192083-9` (`76.192.083-9` and a lower-case `k` are also read, and normalized); " +
  "the check digit is verified by the server (modulo 11, which a pattern cannot express), and the body 0 (`0-0`), which is no taxpayer's, refused";

export const Rut = z
  .string()
  .max(MAX_CHARS.rut)
  .regex(RUT_FORM, { error: "RUT must have the form XXXXXXXX-K (digits, a hyphen and the check digit)" })
  .transform((value, ctx) => {
    const parsed = parseRut(value);
    if (parsed.ok) return parsed.rut;
    ctx.addIssue({ code: "custom", message: `RUT ${parsed.reason}` });
    return z.NEVER;
  })
  .register(z.globalRegistry, { description: RUT_DESCRIPTION, example: "76192083-9" });

export const Periodo = z
  .string()
  .max(MAX_CHARS.periodo)
  .regex(/^\d{4}(0[1-9]|1[0-2])$/, { error: "must be a period YYYYMM (month 01 to 12)" })
  .register(z.globalRegistry, { description: "Tax period `YYYYMM` (month 01 to 12)", example: "202401" });

export interface IntegerOptions {
  min: number;
  max: number;
  /** What it is, for messages ("a year", "a month"). */
  noun?: string;
  /** The message when the number is not one of `values`. */
  valuesMessage?: string;
  /** Only these values (within min..max). */
  values?: readonly number[];
  example?: number;
  description?: string;
}

/**
 * A whole-number path or query parameter: decimal digits only (no sign, no spaces, no `0x`), from
 * `min` to `max`, optionally one of `values`. Written out for the document from the same numbers
 * the check uses (the parameter's text is read as a number, which zod cannot describe by itself).
 */
export function IntegerParam(options: IntegerOptions) {
  const { min, max, values, noun = "a whole number" } = options;
  const range = `from ${min} to ${max}`;
  const listed = values ? ` (${values.join(", ")})` : "";
  return z
    .string()
    .max(MAX_CHARS.integer)
    .regex(/^\d+$/, { error: `must be ${noun} (digits only)` })
    .transform(Number)
    .superRefine((n, ctx) => {
      if (n < min || n > max) ctx.addIssue({ code: "custom", message: `must be ${range} (got ${n})` });
      else if (values && !values.includes(n))
        ctx.addIssue({ code: "custom", message: `${options.valuesMessage ?? `must be one of${listed}`} (got ${n})` });
    })
    .register(z.globalRegistry, {
      type: "integer",
      minimum: min,
      maximum: max,
      ...(values ? { enum: [...values] } : {}),
      ...(options.example !== undefined ? { example: options.example } : {}),
      ...(options.description ? { description: options.description } : {}),
    });
}

/** A whole number of a JSON body that must be one of `values` (the document lists them as `enum`). */
export function IntegerEnum(values: readonly number[], message = `must be one of ${values.join(", ")}`) {
  return z
    .number()
    .int({ error: "must be a whole number" })
    .refine((n) => values.includes(n), { error: message })
    .register(z.globalRegistry, { enum: [...values] });
}
