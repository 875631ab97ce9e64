// Redaction of an SII answer (HTML, XML, JSON, CSV, form text) so a user can show it in a bug
// report: the user's secrets, third parties' RUT check digits, names, contact data and amounts go.
// Every pattern is a single pass with bounded repetitions (no nested quantifiers), over at most
// REDACT_MAX_CHARS of input, so a hostile answer costs linear time.
import { bytesToBase64 } from "../lib/encoding.ts";
import { encodeLatin1, formEncodeLatin1 } from "../lib/latin1.ts";

/** How much of an answer is redacted and kept; the rest is dropped. */
export const REDACT_MAX_CHARS = 64 * 1024;

export interface RedactOptions {
  /** The user's own RUTs (`12345678-K`, dots allowed): their check digits stay. */
  ownRuts?: readonly string[];
  /** Exact secrets (clave, passphrase, key text…), redacted in plain, URL-encoded and base64 forms. */
  secrets?: readonly string[];
  /** Input cap in characters (default REDACT_MAX_CHARS). */
  maxChars?: number;
}

const SECRET = "[secreto]";
const NAME = "[nombre]";
const CONTACT = "[dato]";

type Kind = "secret" | "name" | "contact" | "amount" | "dv" | null;

// Field names are compared lower-case with only letters and digits. The SII's session cookies are
// TOKEN, CSESSIONID and NETSCAPE_LIVEWIRE.* (devlas-cl/dte-sii SiiPortalAuth.js reads them after a
// login; the clave form field is `clave`, as login.ts sends it).
const SECRET_FIELD =
  /clave|passw|passphrase|contrasen|^token|token$|session|cookie|secret|pkey|pfx|privatekey|livewire|conversationid|^pass$|^pin$|^sid$|^auth/;
const NAME_FIELD = /rznsoc|razonsocial|razon|nombre|nmbrecep|nmbemis|apellido|contacto|^nmb$|^name$|fullname|^titular|^representante/;
const CONTACT_FIELD = /mail|correo|fono|telefono|celular|direccion|^dir|calle|domicilio|^numero$/;
// Monetary fields of the DTE and RCV formats (MntTotal, MntNeto, IVA, montoTotal, valorExento…).
const AMOUNT_FIELD = /^mnt|monto|^total|^tot|^iva|neto|exento|^valor|^precio|^prc|impuesto|^saldo|^imp[a-z]|^otroimp|^descuento|^recargo/;
const DV_FIELD = /^dv|dv$|digito/;

function kindOf(field: string): Kind {
  // The local name: `ns1:getTokenReturn` is judged as `getTokenReturn`.
  const key = field
    .slice(field.lastIndexOf(":") + 1)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "");
  if (key === "") return null;
  if (SECRET_FIELD.test(key)) return "secret";
  if (DV_FIELD.test(key)) return "dv";
  if (NAME_FIELD.test(key)) return "name";
  if (CONTACT_FIELD.test(key)) return "contact";
  if (AMOUNT_FIELD.test(key)) return "amount";
  return null;
}

/** The replacement of a field's value: amounts keep their shape with digits hidden. */
function replaced(kind: Kind, value: string): string {
  switch (kind) {
    case "secret":
      return value === "" ? value : SECRET;
    case "name":
      return value.trim() === "" ? value : NAME;
    case "contact":
      return value.trim() === "" ? value : CONTACT;
    case "amount":
      return value.replace(/\d/g, "#");
    case "dv":
      return value.replace(/[0-9kK]/g, "?");
    default:
      return value;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Base64 text that encodes `bytes` wherever they sit in a longer encoded run (three alignments). */
function base64Cores(bytes: Uint8Array): string[] {
  const cores: string[] = [];
  for (let pad = 0; pad < 3; pad++) {
    const padded = new Uint8Array(pad + bytes.length);
    padded.set(bytes, pad);
    const encoded = bytesToBase64(padded);
    // Characters that hold only the secret's bits: skip the pad's, stop before the last partial one.
    const core = encoded.slice(Math.ceil((8 * pad) / 6), Math.floor((8 * (pad + bytes.length)) / 6));
    if (core.length >= 6) cores.push(core, core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return cores;
}

/** Every form a secret can travel in: as is, URL/form-encoded (UTF-8 and latin1), base64 of either. */
function secretForms(secret: string): string[] {
  const forms = new Set<string>([secret, encodeURIComponent(secret), formEncodeLatin1([["", secret]]).slice(1)]);
  forms.add(secret.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;"));
  for (const bytes of [new TextEncoder().encode(secret), encodeLatin1(secret)]) for (const core of base64Cores(bytes)) forms.add(core);
  // Multi-line secrets (PEM keys) are also found line by line.
  for (const line of secret.split(/\r?\n/)) if (line.length >= 16) forms.add(line);
  return [...forms].filter((form) => form.length >= 4).sort((a, b) => b.length - a.length);
}

/** `text` with only the given secrets hidden, in every form they travel in. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  const forms = new Set<string>();
  for (const secret of secrets) if (secret.length >= 4) for (const form of secretForms(secret)) forms.add(form);
  if (forms.size === 0) return text;
  const pattern = new RegExp(
    [...forms]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join("|"),
    "g",
  );
  return text.replace(pattern, SECRET);
}

const PEM = /-----BEGIN [A-Z0-9 ]{1,40}-----[^-]{0,20000}-----END [A-Z0-9 ]{1,40}-----/g;
// A long run of base64 (keys, certificates, PFX, signed tokens); URL paths have '/' far more often.
const BASE64_RUN = /[A-Za-z0-9+/_-]{40,}={0,2}/g;

function redactBlobs(text: string): string {
  return text.replace(PEM, "[PEM]").replace(BASE64_RUN, (run) => {
    const slashes = run.length - run.replace(/\//g, "").length;
    const hasDigit = /\d/.test(run);
    return slashes * 16 <= run.length && hasDigit ? `[base64 ${run.length}]` : run;
  });
}

// <Tag attrs>value</Tag>: the SII's XML answers and the DTE itself.
const XML_FIELD = /<([A-Za-z_][\w.:-]{0,60})((?:\s[^<>]{0,500})?)>([^<]{0,4000})<\/\1>/g;
// The same escaped inside a SOAP answer (getToken's &lt;TOKEN&gt;, QueryEstUp's &lt;ESTADO&gt;).
const ESCAPED_XML_FIELD = /&lt;([A-Za-z_][\w.:-]{0,60})((?:\s[^<>&]{0,500})?)&gt;([^<&]{0,4000})&lt;\/\1&gt;/g;
// "key": "value" or "key": 123 (JSON, also inside HTML scripts).
const JSON_FIELD = /"([\w.-]{1,60})"(\s{0,10}:\s{0,10})("(?:[^"\\]|\\.){0,4000}"|-?[\d.]{1,30})/g;
// key=value in query strings, form bodies, cookies and headers (TOKEN=…; CSESSIONID=…).
const FORM_FIELD = /(^|[?&;,\s"'])([\w.-]{1,60})=([^&;,\s"'<>]{0,4000})/g;
// <input … name="x" … value="y" …>: hidden form fields of the SII's pages.
const INPUT_TAG = /<input\b[^>]{0,2000}>/gi;
const ATTR_NAME = /\bname\s{0,5}=\s{0,5}["']?([\w.-]{1,60})/i;
const ATTR_VALUE = /(\bvalue\s{0,5}=\s{0,5})("[^"]{0,4000}"|'[^']{0,4000}'|[^\s>]{1,4000})/i;

function redactFields(text: string): string {
  return text
    .replace(XML_FIELD, (whole, tag: string, attrs: string, value: string) => {
      const kind = kindOf(tag);
      return kind ? `<${tag}${attrs}>${replaced(kind, value)}</${tag}>` : whole;
    })
    .replace(ESCAPED_XML_FIELD, (whole, tag: string, attrs: string, value: string) => {
      const kind = kindOf(tag);
      return kind ? `&lt;${tag}${attrs}&gt;${replaced(kind, value)}&lt;/${tag}&gt;` : whole;
    })
    .replace(JSON_FIELD, (whole, key: string, colon: string, value: string) => {
      const kind = kindOf(key);
      if (!kind) return whole;
      const quoted = value.startsWith('"');
      const inner = quoted ? value.slice(1, -1) : value;
      const out = replaced(kind, inner);
      return `"${key}"${colon}${quoted || kind !== "amount" ? `"${out}"` : out}`;
    })
    .replace(FORM_FIELD, (whole, lead: string, key: string, value: string) => {
      const kind = kindOf(key);
      return kind ? `${lead}${key}=${replaced(kind, decodeLoosely(value))}` : whole;
    })
    .replace(INPUT_TAG, (tag) => {
      const kind = kindOf(ATTR_NAME.exec(tag)?.[1] ?? "");
      if (!kind) return tag;
      return tag.replace(ATTR_VALUE, (_m, head: string, value: string) => {
        const quote = value[0] === '"' || value[0] === "'" ? value[0] : "";
        const inner = quote ? value.slice(1, -1) : value;
        return `${head}${quote}${replaced(kind, inner)}${quote}`;
      });
    });
}

function decodeLoosely(value: string): string {
  try {
    return decodeURIComponent(value.replace(/\+/g, " "));
  } catch {
    return value;
  }
}

// Delimited text (the RCV's CSV): columns whose header names a name, contact or amount field.
function redactDelimited(text: string): string {
  const lines = text.split("\n");
  let columns: Kind[] | null = null;
  let delimiter = ";";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const sep = line.includes(";") ? ";" : line.includes("\t") ? "\t" : null;
    if (!sep) {
      columns = null;
      continue;
    }
    const cells = line.split(sep);
    if (columns === null || sep !== delimiter) {
      const kinds = cells.map((cell) => kindOf(cell));
      if (kinds.some((kind) => kind !== null) && !cells.some((cell) => /\d{3}/.test(cell))) {
        columns = kinds;
        delimiter = sep;
      }
      continue;
    }
    const known = columns;
    lines[i] = cells.map((cell, j) => replaced(known[j] ?? null, cell)).join(sep);
  }
  return lines.join("\n");
}

// Table cells of upper-case words (how the SII's pages print names), unless they are SII terms.
const NAME_CELL = /(<td\b[^>]{0,300}>)(\s{0,20})([A-ZÁÉÍÓÚÑÜ][A-ZÁÉÍÓÚÑÜ.&,' -]{2,120})(\s{0,20}<\/td>)/g;
const SII_TERMS =
  /\b(FACTURA|BOLETA|NOTA|ELECTR|TOTAL|REGISTRO|PENDIENTE|RECLAM|IVA|SII|DOCUMENTO|EXENT|CREDITO|DEBITO|GUIA|DESPACHO|LIQUIDACION|COMPRA|VENTA|TIPO|FOLIO|FECHA|MONTO|ACEPTAD|RECHAZAD|ESTADO|PERIODO|NO INCLUIR)/;

function redactNameCells(text: string): string {
  return text.replace(NAME_CELL, (whole, open: string, space: string, cell: string, close: string) =>
    cell.trim().includes(" ") && !SII_TERMS.test(cell) ? `${open}${space}${NAME}${close}` : whole,
  );
}

const EMAIL = /(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,5}/g;
const MONEY = /\$\s{0,3}[\d.,]{1,30}/g;
const RUT = /(?<![\d.])(\d{1,2}\.\d{3}\.\d{3}|\d{6,8})-([\dkK])(?![\w])/g;

function rutBody(rut: string): string {
  return rut.replace(/[^\dkK-]/g, "").split("-")[0] ?? "";
}

/** `text` with the user's secrets, third parties' RUT check digits, names, contact data and amounts hidden. */
export function redactSiiAnswer(text: string, options: RedactOptions = {}): string {
  const max = options.maxChars ?? REDACT_MAX_CHARS;
  const cut = text.length > max;
  let out = text.slice(0, max);
  out = redactSecrets(out, options.secrets ?? []);
  out = redactBlobs(out);
  out = redactFields(out);
  out = redactDelimited(out);
  out = redactNameCells(out);
  out = out.replace(EMAIL, CONTACT).replace(MONEY, (m) => m.replace(/\d/g, "#"));
  const own = new Set((options.ownRuts ?? []).map(rutBody));
  out = out.replace(RUT, (whole, body: string) => (own.has(body.replace(/\./g, "")) ? whole : `${body}-?`));
  // The cut may have split a secret that only its whole form would have matched: drop the tail.
  return cut ? `${out.slice(0, Math.max(0, out.length - 256))}\n[… cut]` : out;
}

/** A short one-line excerpt of a redacted answer, for an error's `details`. */
export function redactedExcerpt(text: string, options: RedactOptions = {}, maxChars = 500): string {
  // Redacted before it is shortened, so a secret is never split by the cut.
  const flat = redactSiiAnswer(text, { ...options, maxChars: Math.min(options.maxChars ?? REDACT_MAX_CHARS, 16 * 1024) })
    .replace(/\s+/g, " ")
    .trim();
  return flat.length > maxChars ? `${flat.slice(0, maxChars - 1)}…` : flat;
}
