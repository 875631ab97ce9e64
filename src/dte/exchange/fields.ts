// The fields the exchange answers share, checked against the SII's schemas (RespuestaEnvioDTE_v10,
// Recibos_v10, SiiTypes_v10) and written as elements. Each check records a problem naming the input
// field (and the schema's tag) instead of writing what the schema would refuse; text is escaped as
// generate/serialize.ts escapes it, so canonicalOfOwnText gives its canonical form.
import { santiagoDateTime } from "../../lib/dates.ts";
import { parseRut } from "../../lib/rut.ts";
import { escapeXml } from "../../lib/xml.ts";
import { unwritable } from "../generate/serialize.ts";
import { DATE_RANGE } from "../normalize/fields.ts";
import { type FieldProblem, isNode, validDate } from "../normalize/sanitize.ts";
import { MAX_DOCUMENTS } from "../verify/envelope.ts";
import { ANSWERED_TYPES } from "./codes.ts";

/** Who answers whom: the Caratula's parties and contact. */
export interface AnswerParties {
  /** RutResponde: who answers, the documents' receiver (`12345678-9`). */
  responder: string;
  /** RutRecibe: who is answered, the documents' issuer. */
  recipient: string;
  /** NmbContacto: whom to ask about the answer (at most 40 characters). */
  contactName?: string;
  /** FonoContacto: their phone (at most 40). */
  contactPhone?: string;
  /** MailContacto: their e-mail (at most 80). */
  contactEmail?: string;
}

/** The document an answer is about, as its issuer wrote it. */
export interface DocumentKey {
  /** TipoDTE (TipoDoc in a receipt): 33, 34, 46, 52, 56 or 61. */
  type: number;
  /** Folio: 1 to 10 digits. */
  folio: number;
  /** FchEmis: the issue date, `YYYY-MM-DD`. */
  issued: string;
  /** RUTEmisor: its issuer. */
  issuer: string;
  /** RUTRecep: its receiver. */
  receiver: string;
  /** MntTotal: its total, a whole number of pesos. */
  total: number;
}

/** Entries one answer carries: the documents an envelope may carry (MAX_DOCUMENTS). */
export const MAX_ENTRIES = MAX_DOCUMENTS.EnvioDTE;

/**
 * A digest as long as a SHA-512's in base64 (the SII's are SHA-1, 28 characters): the schema's
 * base64Binary sets no length, so one is set here.
 */
export const MAX_DIGEST = 88;

/** The largest number of `digits` digits (the schema's totalDigits). */
export const digitsMax = (digits: number) => 10 ** digits - 1;

const element = (tag: string, text: string) => `<${tag}>${text}</${tag}>`;

/** A refused value as a message quotes it: short, whatever was sent. */
const shown = (value: unknown) => {
  const quoted = JSON.stringify(value ?? null) ?? String(value);
  return quoted.length > 40 ? `${quoted.slice(0, 40)}…` : quoted;
};

/** What one answer's checks found, each naming its input field. */
export type Problems = FieldProblem[];

/** Text at most `max` characters that ISO-8859-1 can write; `required` refuses it absent or empty. */
export function text(problems: Problems, path: string, tag: string, value: unknown, max: number, required = true): string {
  if (value === undefined || value === null || value === "") {
    if (required) problems.push({ path, message: `is required (${tag})` });
    return "";
  }
  if (typeof value !== "string") {
    problems.push({ path, message: `must be text (${tag})` });
    return "";
  }
  const refused = unwritable(value);
  if (refused) problems.push({ path, message: `${refused} (${tag})` });
  else if (value.length > max) problems.push({ path, message: `is longer than the schema's ${max} characters (${tag})` });
  else return element(tag, escapeXml(value));
  return "";
}

/** A RUT as RUTType wants it (digits, hyphen, check digit); one with a wrong check digit is refused too. */
export function rut(problems: Problems, path: string, tag: string, value: unknown, required = true): string {
  if (value === undefined && !required) return "";
  const parsed = typeof value === "string" ? parseRut(value) : null;
  if (parsed?.ok) return element(tag, parsed.rut);
  const why = parsed ? parsed.reason : "is not text";
  problems.push({ path, message: `${shown(value)} is not a valid RUT: it ${why} (${tag})` });
  return "";
}

/** An xs:date, within the range the SII takes (DATE_RANGE). */
export function date(problems: Problems, path: string, tag: string, value: unknown): string {
  if (typeof value !== "string" || !validDate(value)) problems.push({ path, message: `must be a date YYYY-MM-DD (${tag})` });
  else if (value < DATE_RANGE.min || value > DATE_RANGE.max)
    problems.push({ path, message: `${value} is outside the range the SII accepts (${DATE_RANGE.min} to ${DATE_RANGE.max}) (${tag})` });
  else return element(tag, value);
  return "";
}

const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/;

/** Chile's wall-clock time of an instant, as the SII's time stamps are written (`YYYY-MM-DDTHH:MM:SS`). */
export const stamp = (at: Date) => santiagoDateTime(at).replace(" ", "T");

/**
 * An xs:dateTime as the SII's files write it: an instant (written in Chile's time) or the text
 * `YYYY-MM-DDTHH:MM:SS` already in local time (no fraction, no zone).
 */
export function dateTime(problems: Problems, path: string, tag: string, value: unknown): string {
  if (value instanceof Date && !Number.isNaN(value.getTime())) return element(tag, stamp(value));
  const match = typeof value === "string" ? DATE_TIME.exec(value) : null;
  if (match && validDate(match[1] as string)) return element(tag, value as string);
  problems.push({ path, message: `must be a date and time YYYY-MM-DDTHH:MM:SS (${tag})` });
  return "";
}

/** A whole number from `min` to `max`; `type` names the schema's type in the message. */
export function integer(problems: Problems, path: string, tag: string, value: unknown, min: number, max: number, type: string): string {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= min && value <= max) return element(tag, String(value));
  problems.push({ path, message: `must be a whole number from ${min} to ${max} (${tag}: ${type})` });
  return "";
}

/** One of the codes the schema enumerates. */
export function code(problems: Problems, path: string, tag: string, value: unknown, meanings: Readonly<Record<number, string>>): string {
  if (typeof value === "number" && Object.hasOwn(meanings, value)) return element(tag, String(value));
  problems.push({ path, message: `must be one of ${Object.keys(meanings).join(", ")} (${tag})` });
  return "";
}

/** The note beside a code: the given text, or the code's own meaning when none is given. */
export function note(
  problems: Problems,
  path: string,
  tag: string,
  value: unknown,
  status: unknown,
  meanings: Readonly<Record<number, string>>,
): string {
  if (value !== undefined && value !== null && value !== "") return text(problems, path, tag, value, 256);
  const meaning = typeof status === "number" ? meanings[status] : undefined;
  return meaning === undefined ? "" : element(tag, meaning);
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** An xs:base64Binary without white space, at most `max` characters. */
export function base64(problems: Problems, path: string, tag: string, value: unknown, max: number): string {
  if (value === undefined) return "";
  if (typeof value !== "string" || value === "" || !BASE64.test(value)) problems.push({ path, message: `must be base64 (${tag})` });
  else if (value.length > max) problems.push({ path, message: `is longer than ${max} characters (${tag})` });
  else return element(tag, value);
  return "";
}

/** The document's key fields in schema order (TipoDTE or TipoDoc, Folio, FchEmis, RUTEmisor, RUTRecep, MntTotal). */
export function documentKey(problems: Problems, at: string, doc: DocumentKey, typeTag: "TipoDTE" | "TipoDoc"): string {
  const typeOk = (ANSWERED_TYPES as readonly unknown[]).includes(doc.type);
  if (!typeOk) problems.push({ path: `${at}.type`, message: `must be one of ${ANSWERED_TYPES.join(", ")} (${typeTag})` });
  return (
    (typeOk ? element(typeTag, String(doc.type)) : "") +
    integer(problems, `${at}.folio`, "Folio", doc.folio, 1, digitsMax(10), "FolioType") +
    date(problems, `${at}.issued`, "FchEmis", doc.issued) +
    rut(problems, `${at}.issuer`, "RUTEmisor", doc.issuer) +
    rut(problems, `${at}.receiver`, "RUTRecep", doc.receiver) +
    // MontoType allows 18 digits; a JavaScript number is exact to 2^53 - 1, which no total reaches.
    integer(problems, `${at}.total`, "MntTotal", doc.total, 0, Number.MAX_SAFE_INTEGER, "MontoType")
  );
}

/** The optional contact of a Caratula (NmbContacto, FonoContacto, MailContacto). */
export function contact(problems: Problems, at: string, parties: AnswerParties): string {
  return (
    text(problems, `${at}.contactName`, "NmbContacto", parties.contactName, 40, false) +
    text(problems, `${at}.contactPhone`, "FonoContacto", parties.contactPhone, 40, false) +
    text(problems, `${at}.contactEmail`, "MailContacto", parties.contactEmail, 80, false)
  );
}

/**
 * The entries of a list the schema wants at least `min` times, each an object, with their places in
 * the list; more than `max` in all is refused before any is read.
 */
export function entries<T>(problems: Problems, path: string, value: unknown, what: string, max = MAX_ENTRIES, min = 1): [number, T][] {
  if (!Array.isArray(value)) {
    problems.push({ path, message: `must be a list of ${what}` });
    return [];
  }
  if (value.length < min) problems.push({ path, message: `must hold at least ${min} ${what}` });
  if (value.length > max) {
    problems.push({ path, message: `has ${value.length} ${what}; an answer carries at most ${max}` });
    return [];
  }
  const objects: [number, T][] = [];
  for (const [i, item] of value.entries()) {
    if (isNode(item)) objects.push([i, item as T]);
    else problems.push({ path: `${path}[${i}]`, message: "must be an object" });
  }
  return objects;
}
