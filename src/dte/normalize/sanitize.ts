// Sanitizing of a DTE given as JSON with the SII's tag names (docs/dte-engine.md §1.2, §1.5, §4.1): text
// that ISO-8859-1 can carry and within the schema's lengths, canonical RUTs, real dates, numbers
// where the schema has numbers. What can be fixed is fixed and reported as a warning; what cannot
// (a RUT with a wrong check digit, 2025-02-30, a negative quantity) is reported as a problem at
// its path, and the caller refuses the document. Pure: no I/O; idempotent.
import { santiagoDate } from "../../lib/dates.ts";
import { parseRut } from "../../lib/rut.ts";
import { boundOf, boundProblem } from "./bounds.ts";
import {
  BOLETA_TEXT_LIMITS,
  DATE_FIELDS,
  DATE_RANGE,
  NEVER_SIGNED,
  NON_NEGATIVE_FIELDS,
  NUMERIC_FIELDS,
  RUT_FIELDS,
  TEXT_LIMITS,
} from "./fields.ts";
import { NUMERIC_TEXT } from "./numbers.ts";

export type Node = Record<string, unknown>;

export interface FieldProblem {
  /** Dotted path inside the document, e.g. `Encabezado.Emisor.RUTEmisor` or `Detalle[2].QtyItem`. */
  path: string;
  message: string;
  /** The tag, when the problem is a number's range (negative, or beyond the SII's bound). */
  number?: string;
}

export interface Sanitized {
  warnings: string[];
  problems: FieldProblem[];
}

// Characters above U+00FF people paste from word processors, and what ISO-8859-1 can say instead.
const TRANSLITERATIONS: Record<string, string> = {
  "\u2018": "'",
  "\u2019": "'",
  "\u201A": "'",
  "\u201B": "'",
  "\u2032": "'",
  "\u201C": '"',
  "\u201D": '"',
  "\u201E": '"',
  "\u201F": '"',
  "\u2033": '"',
  "\u2010": "-",
  "\u2011": "-",
  "\u2012": "-",
  "\u2013": "-",
  "\u2014": "-",
  "\u2015": "-",
  "\u2212": "-",
  "\u2022": "-",
  "\u2026": "...",
  "\u20AC": "EUR",
  "\u2122": "TM",
  "\u0152": "OE",
  "\u0153": "oe",
  "\u2039": "<",
  "\u203A": ">",
  "\u02C6": "^",
  "\u02DC": "~",
};

/** A character outside ISO-8859-1 (either half of a surrogate pair included). */
const ABOVE_LATIN1 = /[\u0100-\uffff]/;

/** Whether the text has a C0 or C1 control character or DEL. */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

/** Text ISO-8859-1 can carry: common look-alikes transliterated, accents kept, anything else removed. */
export function toLatin1Text(text: string): string {
  // ISO-8859-1 text is its own NFC form: none of its characters composes with another.
  if (!ABOVE_LATIN1.test(text)) return text;
  let out = "";
  for (const ch of text.normalize("NFC")) {
    const code = ch.codePointAt(0) as number;
    if (code <= 0xff) out += ch;
    else if (TRANSLITERATIONS[ch] !== undefined) out += TRANSLITERATIONS[ch];
    else if ((code >= 0x2000 && code <= 0x200a) || code === 0x202f || code === 0x205f || code === 0x3000) out += " ";
    else {
      // Letters with marks ISO-8859-1 lacks (ă, ő, ž) keep their base letter when it has one.
      const base = ch.normalize("NFD").replace(/\p{M}/gu, "");
      if (base.length === 1 && (base.codePointAt(0) as number) <= 0xff) out += base;
    }
  }
  return out;
}

/** Control characters out (C0, DEL, C1); a whitespace run holding a tab or line break becomes one space; ends trimmed. */
export function cleanControls(text: string): string {
  // Without control characters there is no line break, so only the ends change.
  if (!hasControl(text)) return text.trim();
  let out = "";
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    if (code === 0x09 || code === 0x0a || code === 0x0b || code === 0x0c || code === 0x0d) out += "\n";
    else if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) continue;
    else out += ch;
  }
  // Each whitespace run once: from the spaces before its first line break to its end becomes one
  // space. (The pattern `[ \u00A0]*\n[\s\u00A0]*` rescanned a long run of spaces from each of them.)
  return out
    .replace(/\s+/g, (run) => {
      const lineBreak = run.indexOf("\n");
      if (lineBreak === -1) return run;
      let start = lineBreak;
      while (start > 0 && (run[start - 1] === " " || run[start - 1] === "\u00A0")) start--;
      return `${run.slice(0, start)} `;
    })
    .trim();
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar date written `YYYY-MM-DD`. */
export function validDate(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

export interface SanitizeOptions {
  /** Text fields left over their schema length, for a later step to shorten (the normalizer's item names). */
  uncut?: ReadonlySet<string>;
}

/** Sanitizes `dte` in place (see the file comment); `tipo` selects the boleta limits and the signed amounts of 43. */
export function sanitizeDte(dte: Node, tipo: number, options: SanitizeOptions = {}): Sanitized {
  const warnings: string[] = [];
  const problems: FieldProblem[] = [];
  const boleta = tipo === 39 || tipo === 41;
  const uncut = options.uncut;
  const limitOf = (key: string) =>
    uncut?.has(key) ? undefined : boleta ? (BOLETA_TEXT_LIMITS[key] ?? TEXT_LIMITS[key]) : TEXT_LIMITS[key];
  const REMOVE = Symbol("remove");

  // A value's path is written only into a warning or a problem: most values have neither.
  const scalar = (key: string, value: unknown, prefix: string, index: number): unknown => {
    if (typeof value === "string") {
      const latin1 = toLatin1Text(value);
      const cleaned = cleanControls(latin1);
      if (cleaned === "") {
        warnings.push(`${pathOf(prefix, key, index)} removed (empty)`);
        return REMOVE;
      }
      if (cleaned !== value) {
        const reasons = [
          latin1 !== value.normalize("NFC") ? "characters outside ISO-8859-1 replaced or removed" : "",
          cleaned !== latin1 ? "control characters and surrounding whitespace removed" : "",
        ];
        warnings.push(
          `${pathOf(prefix, key, index)} = ${JSON.stringify(cleaned)} (${reasons.filter(Boolean).join("; ") || "composed to single characters"})`,
        );
      }
      value = cleaned;
    }

    if (RUT_FIELDS.has(key)) {
      const text = String(value).replace(/\s+/g, "");
      const rut = parseRut(text);
      if (!rut.ok) {
        problems.push({
          path: pathOf(prefix, key, index),
          message: `${JSON.stringify(String(value))} is not a valid RUT: it ${rut.reason}`,
        });
        return value;
      }
      if (rut.rut !== value)
        warnings.push(`${pathOf(prefix, key, index)} = ${JSON.stringify(rut.rut)} (RUT written as digits, hyphen and check digit)`);
      return rut.rut;
    }

    if (DATE_FIELDS.has(key)) {
      if (typeof value === "number" && Number.isInteger(value) && value > 0) {
        // The reference accepts Unix timestamps (seconds) where a date goes.
        const date = santiagoDate(new Date(value * 1000));
        warnings.push(`${pathOf(prefix, key, index)} = ${JSON.stringify(date)} (from the timestamp ${value})`);
        value = date;
      }
      if (typeof value !== "string" || !validDate(value)) {
        problems.push({ path: pathOf(prefix, key, index), message: `${JSON.stringify(value)} is not a date (YYYY-MM-DD)` });
      } else if (value < DATE_RANGE.min || value > DATE_RANGE.max) {
        problems.push({
          path: pathOf(prefix, key, index),
          message: `${value} is outside the range the SII accepts (${DATE_RANGE.min} to ${DATE_RANGE.max})`,
        });
      }
      return value;
    }

    // The reference pads five-digit activity codes (they predate the six-digit table); keep the padding.
    if (key === "Acteco" && typeof value === "string" && /^0\d{5}$/.test(value)) return value;
    // `false` is "no value" where the schema has a number (the reference's own defaults, and ERPs'
    // "no price"); e.g. LibreDTE's case 061_002_corrige_texto_factura gives `PrcItem: false`.
    if (value === false && NUMERIC_FIELDS.has(key)) {
      warnings.push(`${pathOf(prefix, key, index)} removed (false: no value)`);
      return REMOVE;
    }
    if (key === "CredEC" && value === true) return value; // the reference computes it
    if (NUMERIC_FIELDS.has(key) && !(boleta && key === "CodRef")) {
      let number = value;
      if (typeof value === "string" && NUMERIC_TEXT.test(value)) number = Number(value);
      // An infinity (digits past a double's range, an overflowed sum) is out of a bounded field's range.
      const outside = typeof number === "number" ? boundProblem(key, number, boundOf(key, tipo)) : undefined;
      if (outside !== undefined) {
        problems.push({ path: pathOf(prefix, key, index), message: `${number} ${outside}`, number: key });
        return value;
      }
      if (typeof number !== "number" || !Number.isFinite(number)) {
        problems.push({ path: pathOf(prefix, key, index), message: `${JSON.stringify(value)} is not a number` });
        return value;
      }
      const signedLiquidacion = tipo === 43 && !NEVER_SIGNED.has(key);
      if (number < 0 && NON_NEGATIVE_FIELDS.has(key) && !signedLiquidacion)
        problems.push({ path: pathOf(prefix, key, index), message: `must not be negative (${number})`, number: key });
      if (key === "Acteco" && Number.isInteger(number) && String(number).length === 5) {
        warnings.push(`${pathOf(prefix, key, index)} = "0${number}" (five-digit activity code padded to six)`);
        return `0${number}`;
      }
      return number;
    }

    const limit = limitOf(key);
    if (limit !== undefined && typeof value === "string" && value.length > limit) {
      warnings.push(`${pathOf(prefix, key, index)} truncated to ${limit} characters (the schema's maximum)`);
      return value.slice(0, limit).trimEnd();
    }
    return value;
  };

  const walk = (node: Node, prefix: string) => {
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (Array.isArray(value)) {
        const kept: unknown[] = [];
        value.forEach((item, i) => {
          if (isNode(item)) {
            walk(item, `${pathOf(prefix, key, -1)}[${i}]`);
            kept.push(item);
          } else {
            const result = scalar(key, item, prefix, i);
            if (result !== REMOVE) kept.push(result);
          }
        });
        node[key] = kept;
      } else if (isNode(value)) {
        walk(value, pathOf(prefix, key, -1));
      } else if (value !== undefined && value !== null) {
        const result = scalar(key, value, prefix, -1);
        if (result === REMOVE) delete node[key];
        else if (result !== value) node[key] = result;
      }
    }
  };
  walk(dte, "");
  return { warnings, problems };
}

/** The dotted path of `key` under `prefix`, with its list index when `index` is not -1. */
function pathOf(prefix: string, key: string, index: number): string {
  const path = prefix ? `${prefix}.${key}` : key;
  return index === -1 ? path : `${path}[${index}]`;
}

/** A JSON object (not an array, not null). */
export const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value);
