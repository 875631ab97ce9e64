// An answer's JSON text written a piece at a time, for `okStream`: the answers of the reading
// operations at the SII's maxima (2 000 documents' checks or normalized documents, a PDF of 2 000
// pages in base64) took 10–100 ms to serialize in one `JSON.stringify`. The pieces joined are what
// `JSON.stringify(value)` gives, byte for byte.
import { bytesToBase64 } from "../lib/encoding.ts";
import type { Pause } from "../lib/yielder.ts";

/** Bytes written as a base64 string; streamed, they are encoded a piece at a time. */
export class Base64Value {
  readonly bytes: Uint8Array;
  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }
  toJSON(): string {
    return bytesToBase64(this.bytes);
  }
}

/** Bytes encoded between two pauses (a multiple of 3, so the pieces' base64 joins into the whole's). */
const BASE64_PIECE = 3 * 16 * 1024;

/** Arrays and objects this deep are written member by member; deeper ones in one `JSON.stringify` each. */
const SPLIT_DEPTH = 2;

/** An object JSON.stringify writes member by member (not a Date or anything else with a `toJSON`). */
const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (value === null || typeof value !== "object" || typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/** Pieces gathered into chunks of at least `size` characters (a chunk per comma would be a write per comma). */
export async function* gathered(pieces: AsyncIterable<string>, size = 64 * 1024): AsyncGenerator<string> {
  let chunk = "";
  for await (const piece of pieces) {
    chunk += piece;
    if (chunk.length >= size) {
      yield chunk;
      chunk = "";
    }
  }
  if (chunk) yield chunk;
}

/** `JSON.stringify(value)` as pieces, with `pause` after each member of the arrays and objects split. */
export async function* jsonPieces(value: unknown, pause: Pause, depth = 0): AsyncGenerator<string> {
  if (value instanceof Base64Value) {
    yield '"';
    for (let at = 0; at < value.bytes.length; at += BASE64_PIECE) {
      yield bytesToBase64(value.bytes.subarray(at, at + BASE64_PIECE));
      await pause();
    }
    yield '"';
  } else if (depth < SPLIT_DEPTH && Array.isArray(value)) {
    yield "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ",";
      // As JSON.stringify writes them: what has no JSON form is null in an array.
      const item: unknown = value[i];
      if (hasJsonForm(item)) yield* jsonPieces(item, pause, depth + 1);
      else yield "null";
      await pause();
    }
    yield "]";
  } else if (depth < SPLIT_DEPTH && isPlainObject(value)) {
    yield "{";
    let first = true;
    for (const key of Object.keys(value)) {
      const member: unknown = value[key];
      // …and is left out of an object.
      if (!hasJsonForm(member)) continue;
      yield `${first ? "" : ","}${JSON.stringify(key)}:`;
      first = false;
      yield* jsonPieces(member, pause, depth + 1);
    }
    yield "}";
  } else {
    yield JSON.stringify(value) ?? "null";
  }
}

function hasJsonForm(value: unknown): boolean {
  return value !== undefined && typeof value !== "function" && typeof value !== "symbol";
}
