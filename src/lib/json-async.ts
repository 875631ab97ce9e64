// `JSON.parse` of a request body's bytes in slices that yield, for the bodies whose bulk is one long
// string: an upload of 2 000 documents is `{"xml": "<12 MB of base64>"}`, and decoding plus parsing
// it in one step held the thread 20–60 ms. The structure around the long strings (small) is parsed
// at once; each long string is decoded and parsed a piece at a time. The result is what
// `JSON.parse(new TextDecoder().decode(bytes))` gives, and it throws where that throws.

import { concatBytes } from "./encoding.ts";
import type { Pause } from "./yielder.ts";

/** String values at least this long (bytes) are read in pieces. */
const LONG_STRING = 64 * 1024;
/** Bytes of a long string decoded and parsed between two pauses: ~1–2 ms of work. */
const PIECE = 512 * 1024;
/** Bytes searched for a string's closing quote between two pauses. */
const SCAN_WINDOW = 256 * 1024;
/** String literals scanned for between two pauses. */
const SCAN_SLICE = 4096;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

const isSpace = (b: number | undefined) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/** Thrown when the bytes are not one JSON text (the caller may read them the ordinary way for its message). */
export class JsonSyntaxError extends Error {}

export interface JsonAsyncOptions {
  /** For tests: strings at least this long are read in pieces, of `piece` bytes; a string's end is searched for `scanWindow` bytes at a time. */
  longString?: number;
  piece?: number;
  scanWindow?: number;
}

/** The parsed JSON text of `bytes` (UTF-8), read with `pause` between slices. */
export async function parseJsonBytesAsync(bytes: Uint8Array, pause: Pause, options: JsonAsyncOptions = {}): Promise<unknown> {
  const longString = options.longString ?? LONG_STRING;
  const piece = options.piece ?? PIECE;
  const scanWindow = options.scanWindow ?? SCAN_WINDOW;
  // Each long string value is replaced in the structure by a marker no request can guess.
  const nonce = `long-string:${crypto.randomUUID()}:`;
  const skeleton: Uint8Array[] = [];
  const longValues = new Map<string, string>();
  let copied = 0;
  let at = bytes.indexOf(QUOTE);
  for (let n = 1; at !== -1; n++) {
    // A long string's end is searched for a window at a time.
    let end = closingQuote(bytes, at + 1, at + 1 + scanWindow);
    for (let window = at + 1 + scanWindow; end === -1 && window < bytes.length; window += scanWindow) {
      await pause();
      end = closingQuote(bytes, window, window + scanWindow);
    }
    if (end === -1) throw new JsonSyntaxError("a string is not closed");
    let next = end + 1;
    while (isSpace(bytes[next])) next++;
    // Keys stay in the structure; only values are read apart.
    if (end - at - 1 >= longString && bytes[next] !== COLON) {
      const marker = `${nonce}${longValues.size}`;
      skeleton.push(bytes.subarray(copied, at + 1), new TextEncoder().encode(marker));
      copied = end;
      longValues.set(marker, await longStringValue(bytes.subarray(at + 1, end), piece, pause));
    }
    at = bytes.indexOf(QUOTE, end + 1);
    if (n % SCAN_SLICE === 0) await pause();
  }
  if (longValues.size === 0) return parse(new TextDecoder().decode(bytes));
  skeleton.push(bytes.subarray(copied));
  const structure = parse(new TextDecoder().decode(concatBytes(skeleton)));
  return replaceMarkers(structure, longValues);
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new JsonSyntaxError(err instanceof Error ? err.message : "malformed JSON");
  }
}

/** The index of the first quote from `from` (below `limit`) that closes a string (-1: none there). */
function closingQuote(bytes: Uint8Array, from: number, limit: number): number {
  // Indexes stay those of `bytes`; the backslashes before a quote may lie before `from`.
  const window = bytes.subarray(0, Math.min(limit, bytes.length));
  let at = window.indexOf(QUOTE, from);
  while (at !== -1) {
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = window.indexOf(QUOTE, at + 1);
  }
  return -1;
}

/**
 * A string literal's content decoded and parsed a piece at a time. A piece never ends inside an
 * escape (`\\`, `\"`, `\u00e9`: it ends before the run of backslashes in its last 6 bytes); a
 * character cut in two is carried by the streaming decoder. Parsed pieces joined are the string.
 */
async function longStringValue(content: Uint8Array, piece: number, pause: Pause): Promise<string> {
  // A BOM here is a character of the string, not a mark of the text's start.
  const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
  const parts: string[] = [];
  let start = 0;
  while (start < content.length) {
    let end = Math.min(start + piece, content.length);
    if (end < content.length) {
      const backslash = content.subarray(Math.max(start, end - 6), end).indexOf(BACKSLASH);
      if (backslash !== -1) {
        end = Math.max(start, end - 6) + backslash;
        while (end > start && content[end - 1] === BACKSLASH) end--;
      }
      // The piece is one run of backslashes: it ends after the run's last whole escape.
      if (end === start) end = Math.min(afterEscapes(content, start), content.length);
    }
    const last = end === content.length;
    const text = decoder.decode(content.subarray(start, end), { stream: !last });
    parts.push(parse(`"${text}"`) as string);
    start = end;
    await pause();
  }
  return parts.join("");
}

/** Where the run of backslashes at `start` ends with its escapes whole (`\\` pairs, then `\x` or `\uXXXX`). */
function afterEscapes(content: Uint8Array, start: number): number {
  let end = start;
  while (content[end] === BACKSLASH) end++;
  if ((end - start) % 2 === 0) return end;
  return content[end] === 0x75 ? end + 5 : end + 1; // "u": four hex digits follow
}

/** `value` with every marker string replaced by its long string (the structure around long strings is small). */
function replaceMarkers(value: unknown, longValues: ReadonlyMap<string, string>): unknown {
  if (typeof value === "string") return longValues.get(value) ?? value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = replaceMarkers(value[i], longValues);
  } else if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const replaced = replaceMarkers(record[key], longValues);
      if (replaced !== record[key]) record[key] = replaced;
    }
  }
  return value;
}
