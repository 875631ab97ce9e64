// Reads one JSON object as its bytes arrive, without holding it whole: every top-level member is
// handed over as a value, except one array member whose elements are handed over one by one. The
// SII's facade answers `{data: [...rows...], ...}`; a large period's rows then pass through a row at
// a time. Bytes are scanned (JSON's structure is ASCII), and each finished value is decoded and
// parsed with JSON.parse, so chunks may split anywhere, even inside a multi-byte character.
import { concatBytes } from "./encoding.ts";

export class JsonStreamError extends Error {}

/** A top-level member (`item: false`), or one element of the streamed array (`item: true`). */
export interface ObjectPart {
  key: string;
  value: unknown;
  item: boolean;
}

type State =
  | "open" // before `{`
  | "first-key" // after `{`: a key or `}`
  | "key" // after `,`: a key
  | "colon"
  | "value" // a member's value
  | "array-or-value" // the streamed key's value: `[` or any other value
  | "first-item" // after `[`: an element or `]`
  | "item" // after `,` in the array
  | "after-item" // `,` or `]`
  | "after-member" // `,` or `}`
  | "done"; // only whitespace may follow

type Target = "key" | "member" | "item";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
/** Bytes that end a number or a literal. */
const endsScalar = (b: number) => b === 0x2c || b === 0x5d || b === 0x7d || isSpace(b);
/** First bytes of a number or a literal (true, false, null). */
const startsScalar = (b: number) => b === 0x2d || (b >= 0x30 && b <= 0x39) || b === 0x74 || b === 0x66 || b === 0x6e;

const utf8 = new TextDecoder();

export class JsonObjectReader {
  private readonly streamKey: string;
  private readonly decode: (bytes: Uint8Array) => string;
  private readonly maxValueBytes: number;
  private state: State = "open";
  private key = "";
  // The value being captured: its pieces so far and where its scan stands.
  private target: Target | null = null;
  private afterCapture: State = "done";
  private pieces: Uint8Array[] = [];
  private size = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private scalar = false;

  /**
   * @param streamKey the member whose array elements are handed over one by one
   * @param decode bytes of one value to text (the caller's charset rule)
   * @param maxValueBytes a member or element larger than this is refused (memory stays bounded)
   */
  constructor(streamKey: string, decode: (bytes: Uint8Array) => string = (bytes) => utf8.decode(bytes), maxValueBytes = 1024 * 1024) {
    this.streamKey = streamKey;
    this.decode = decode;
    this.maxValueBytes = maxValueBytes;
  }

  /** Reads the next bytes; returns the members and elements they completed. */
  push(chunk: Uint8Array): ObjectPart[] {
    const parts: ObjectPart[] = [];
    let i = 0;
    while (i < chunk.length) {
      if (this.target) {
        i = this.scan(chunk, i, parts);
        continue;
      }
      const b = chunk[i] as number;
      if (isSpace(b)) {
        i++;
        continue;
      }
      this.structure(b);
      // A value starts at this byte: `structure` opened a capture, which scans it from here.
      if (this.target) {
        this.pieces = [];
        this.size = 0;
        this.depth = 0;
        this.inString = b === QUOTE;
        this.escaped = false;
        this.scalar = startsScalar(b);
        if (b === 0x7b || b === 0x5b) this.depth = 1;
        // The opening byte is part of the value; scan goes on after it (a scalar's first byte
        // cannot end it).
        this.pieces.push(chunk.slice(i, i + 1));
        this.size = 1;
      }
      i++;
    }
    return parts;
  }

  /** The input ended: throws unless the object was complete. */
  end(): void {
    if (this.state !== "done" || this.target) throw new JsonStreamError("the JSON object ended early");
  }

  /** A structural byte outside any value. */
  private structure(b: number): void {
    const unexpected = () => new JsonStreamError(`unexpected ${JSON.stringify(String.fromCharCode(b))} (${this.state})`);
    switch (this.state) {
      case "open":
        if (b !== 0x7b) throw unexpected();
        this.state = "first-key";
        return;
      case "first-key":
        if (b === 0x7d) {
          this.state = "done";
          return;
        }
        if (b !== QUOTE) throw unexpected();
        this.capture("key", "colon");
        return;
      case "key":
        if (b !== QUOTE) throw unexpected();
        this.capture("key", "colon");
        return;
      case "colon":
        if (b !== 0x3a) throw unexpected();
        this.state = this.key === this.streamKey ? "array-or-value" : "value";
        return;
      case "array-or-value":
        if (b === 0x5b) {
          this.state = "first-item";
          return;
        }
        this.startValue(b, "member", "after-member", unexpected);
        return;
      case "value":
        this.startValue(b, "member", "after-member", unexpected);
        return;
      case "first-item":
        if (b === 0x5d) {
          this.state = "after-member";
          return;
        }
        this.startValue(b, "item", "after-item", unexpected);
        return;
      case "item":
        this.startValue(b, "item", "after-item", unexpected);
        return;
      case "after-item":
        if (b === 0x2c) this.state = "item";
        else if (b === 0x5d) this.state = "after-member";
        else throw unexpected();
        return;
      case "after-member":
        if (b === 0x2c) this.state = "key";
        else if (b === 0x7d) this.state = "done";
        else throw unexpected();
        return;
      case "done":
        throw unexpected();
    }
  }

  private startValue(b: number, target: Target, next: State, unexpected: () => Error): void {
    if (b !== QUOTE && b !== 0x7b && b !== 0x5b && !startsScalar(b)) throw unexpected();
    this.capture(target, next);
  }

  private capture(target: Target, next: State): void {
    this.target = target;
    this.afterCapture = next;
  }

  /** Scans a captured value from `start`; returns where structure reading resumes. */
  private scan(chunk: Uint8Array, start: number, parts: ObjectPart[]): number {
    let end = -1; // the index just past the value, once found
    for (let j = start; j < chunk.length; j++) {
      const b = chunk[j] as number;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === BACKSLASH) this.escaped = true;
        else if (b === QUOTE) {
          this.inString = false;
          if (this.depth === 0) {
            end = j + 1;
            break;
          }
        }
      } else if (this.scalar) {
        if (endsScalar(b)) {
          end = j; // the delimiter belongs to the structure around the value
          break;
        }
      } else if (b === QUOTE) this.inString = true;
      else if (b === 0x7b || b === 0x5b) this.depth++;
      else if (b === 0x7d || b === 0x5d) {
        if (--this.depth === 0) {
          end = j + 1;
          break;
        }
      }
    }
    const stop = end < 0 ? chunk.length : end;
    this.size += stop - start;
    if (this.size > this.maxValueBytes) throw new JsonStreamError(`a JSON value is larger than ${this.maxValueBytes} bytes`);
    if (stop > start) this.pieces.push(chunk.slice(start, stop));
    if (end < 0) return chunk.length;
    this.finish(parts);
    return end;
  }

  private finish(parts: ObjectPart[]): void {
    const bytes = this.pieces.length === 1 ? (this.pieces[0] as Uint8Array) : concatBytes(this.pieces);
    this.pieces = [];
    let value: unknown;
    try {
      value = JSON.parse(this.decode(bytes));
    } catch {
      throw new JsonStreamError(`malformed JSON value under "${this.key}"`);
    }
    const target = this.target;
    this.target = null;
    this.state = this.afterCapture;
    if (target === "key") {
      this.key = value as string;
      return;
    }
    parts.push({ key: this.key, value, item: target === "item" });
  }
}
