// PEM as people paste it into JSON: with or without line breaks, CRLF, a JSON-escaped "\n" left
// in, several blocks, or a bare base64 DER body without the armor.
import { base64ToBytes, bytesToBase64 } from "../lib/encoding.ts";

export interface DerBlock {
  /** `CERTIFICATE`, `PRIVATE KEY`…; null for bare base64. */
  label: string | null;
  der: Uint8Array<ArrayBuffer>;
  /** RFC 1421 headers such as `Proc-Type: 4,ENCRYPTED` (old OpenSSL encrypted keys). */
  headers: string[];
}

const LINE_BREAK = /\r\n|\r|\n|\\r\\n|\\n/;
const HEADER = /^[A-Za-z-]+:/;

/** Base64 with any whitespace (or escaped line breaks) in it; null when it is not base64. */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> | null {
  const compact = text.replace(/\s|\\r|\\n/g, "");
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact) || compact.length % 4 === 1) return null;
  try {
    return base64ToBytes(compact);
  } catch {
    return null;
  }
}

/** The blocks of a PEM text, or the bytes of bare base64; null when it is neither. */
export function readDerBlocks(text: string): DerBlock[] | null {
  const blocks: DerBlock[] = [];
  for (const { label, body } of armoredBlocks(text)) {
    const lines = body.split(LINE_BREAK).map((line) => line.trim());
    const headers = lines.filter((line) => HEADER.test(line));
    const der = decodeBase64(lines.filter((line) => !HEADER.test(line)).join(""));
    if (!der) return null;
    blocks.push({ label, der, headers });
  }
  if (blocks.length > 0) return blocks;
  // An armor with no matching END line is broken PEM, not base64.
  if (text.includes("-----BEGIN")) return null;
  const der = decodeBase64(text);
  return der ? [{ label: null, der, headers: [] }] : null;
}

const BEGIN = "-----BEGIN ";
const END = "-----END ";
const DASHES = "-----";

/** The label of a `-----BEGIN <label>-----` / `-----END <label>-----` line whose keyword ends at `from`. */
function labelAt(text: string, from: number): { label: string; end: number } | null {
  let i = from;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!((c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 32)) break; // A-Z 0-9 space
  }
  if (i === from || !text.startsWith(DASHES, i)) return null;
  return { label: text.slice(from, i), end: i + DASHES.length };
}

/**
 * Each BEGIN paired with the first END of the same label after it, in one pass: the END lines are
 * indexed first, so a text of many BEGIN lines and no END (which made a backreferencing regular
 * expression rescan the rest of the text from every BEGIN) costs no more than reading it.
 */
function armoredBlocks(text: string): { label: string; body: string }[] {
  const ends = new Map<string, number[]>();
  for (let at = text.indexOf(END); at !== -1; at = text.indexOf(END, at + 1)) {
    const line = labelAt(text, at + END.length);
    if (!line) continue;
    const list = ends.get(line.label);
    if (list) list.push(at);
    else ends.set(line.label, [at]);
  }
  const used = new Map<string, number>(); // per label: how many of its END lines lie behind the scan
  const blocks: { label: string; body: string }[] = [];
  for (let at = text.indexOf(BEGIN); at !== -1; ) {
    const line = labelAt(text, at + BEGIN.length);
    if (!line) {
      at = text.indexOf(BEGIN, at + 1);
      continue;
    }
    const list = ends.get(line.label) ?? [];
    let next = used.get(line.label) ?? 0;
    while (next < list.length && (list[next] as number) < line.end) next++;
    used.set(line.label, next);
    const endAt = list[next];
    if (endAt === undefined) {
      at = text.indexOf(BEGIN, at + 1);
      continue;
    }
    blocks.push({ label: line.label, body: text.slice(line.end, endAt) });
    at = text.indexOf(BEGIN, endAt + END.length + line.label.length + DASHES.length);
  }
  return blocks;
}

export function toPem(label: string, der: Uint8Array, headers: string[] = []): string {
  const body = bytesToBase64(der).replace(/.{64}/g, "$&\n").replace(/\n$/, "");
  const head = headers.length > 0 ? `${headers.join("\n")}\n\n` : "";
  return `-----BEGIN ${label}-----\n${head}${body}\n-----END ${label}-----\n`;
}
