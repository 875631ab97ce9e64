// A small strict, non-validating XML 1.0 parser for the documents the SII exchanges. It keeps
// what canonicalization (C14N) needs later: element names with their prefix, attributes in
// document order (namespace declarations included), and text exactly as parsed (no trimming;
// CDATA becomes text; line ends normalized to LF as every XML parser must). Comments and
// processing instructions inside the root are kept as nodes of their own, so no reader can take
// them for data and a signed part can be refused when it holds one; each element records where it
// starts and ends in `XmlDocument.source`, so the exact text of the very node that was parsed can
// be read (a signature over text is then checked on that node, never on a text search). Anything
// outside that (DOCTYPE, entities other than the
// five predefined ones, mismatched tags, stray text) is refused with its line and column.
// Call `unsafeXmlReason` (guard.ts) on uploaded XML first; this parser is iterative anyway, so
// deep nesting cannot exhaust the stack.
import { decodeLatin1 } from "../../lib/latin1.ts";
import { type Pause, yielder } from "../../lib/yielder.ts";

export interface XmlAttribute {
  name: string;
  value: string;
}

export interface XmlElement {
  type: "element";
  /** The qualified name as written, e.g. `DTE` or `ds:Signature`. */
  name: string;
  attributes: XmlAttribute[];
  children: XmlNode[];
  /** Offsets in `XmlDocument.source`: the `<` of the start tag and just after the end tag's `>`. */
  start: number;
  end: number;
}

export interface XmlText {
  type: "text";
  text: string;
}

/** A comment (`<!--text-->`): never data, but kept so a check can refuse a signed part holding one. */
export interface XmlComment {
  type: "comment";
  text: string;
}

/** A processing instruction (`<?target data?>`), kept for the same reason. */
export interface XmlInstruction {
  type: "instruction";
  target: string;
}

export type XmlNode = XmlElement | XmlText | XmlComment | XmlInstruction;

export interface XmlDocument {
  /** Pseudo-attributes of `<?xml …?>`, when the document has one. */
  declaration: { version: string; encoding?: string; standalone?: string } | null;
  root: XmlElement;
  /** The text parsed (line ends normalized to LF): elements' `start`/`end` are offsets in it. */
  source: string;
}

export class XmlParseError extends Error {
  readonly line: number;
  readonly column: number;
  constructor(message: string, line: number, column: number) {
    super(`${message} (line ${line}, column ${column})`);
    this.name = "XmlParseError";
    this.line = line;
    this.column = column;
  }
}

const PREDEFINED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
// Names: ASCII letters, `_`, `:` and any non-ASCII letter-range character to start; digits, `-`, `.` after.
const NAME =
  /[A-Za-z_:\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C-\u200D\u2070-\uFFFD][\w.:\-\u00B7\u00C0-\u00D6\u00D8-\u00F6\u00F8-\uFFFD]*/y;
const SPACE = /[ \t\n]*/y;

/** Index of the first character XML 1.0 forbids (C0 controls but tab and line ends, U+FFFE/F, lone surrogates), or -1. */
function illegalCharacterAt(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c < 0xd800) continue;
    if (c === 0x9 || c === 0xa || c === 0xd) continue;
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return i;
    }
    if (c >= 0xe000 && c <= 0xfffd) continue;
    return i;
  }
  return -1;
}

/** The local part of a qualified name: `ds:Signature` → `Signature`. */
export function localName(name: string): string {
  const colon = name.indexOf(":");
  return colon < 0 ? name : name.slice(colon + 1);
}

/** Parses a whole document given as text (see `decodeXmlBytes` for bytes), in one synchronous step. */
export function parseXml(input: string): XmlDocument {
  const parser = new Parser(input);
  parser.begin();
  parser.steps(Number.POSITIVE_INFINITY);
  return parser.finish();
}

/** Markup items (tags, texts, comments…) parsed between two checks of the slice's length. */
const STEPS_PER_CHECK = 1000;

/**
 * The same parse as `parseXml` (the same parser, so the same tree, spans and errors) in slices: a
 * macrotask is taken when `pause` says a slice is used up, asked every `steps` (1 000) markup items. A
 * 2 000-document envelope is ~300 000 of them, a third of a second of parsing on Node.
 */
export async function parseXmlAsync(
  input: string,
  { pause = yielder(10, 10), steps = STEPS_PER_CHECK }: { pause?: Pause; steps?: number } = {},
): Promise<XmlDocument> {
  const parser = new Parser(input);
  parser.begin();
  while (!parser.steps(steps)) await pause();
  return parser.finish();
}

class Parser {
  private readonly s: string;
  private i = 0;
  private declared: XmlDocument["declaration"] = null;
  /** The elements open at `i` (the root first), and the root once its start tag is read. */
  private readonly stack: XmlElement[] = [];
  private root: XmlElement | undefined;

  constructor(input: string) {
    // XML 1.0 §2.11: CRLF and lone CR are read as LF before anything else.
    this.s = (input.charCodeAt(0) === 0xfeff ? input.slice(1) : input).replace(/\r\n?/g, "\n");
  }

  /** The prolog, up to the root element's `<`. */
  begin(): void {
    this.declared = this.s.startsWith("<?xml") && /^<\?xml[ \t\n]/.test(this.s) ? this.declaration() : null;
    this.misc();
    if (this.i >= this.s.length) this.fail("the document has no root element");
    if (this.s[this.i] !== "<") this.fail("text before the root element");
    if (this.s.startsWith("</", this.i) || this.s.startsWith("<!", this.i)) this.fail("expected the root element");
  }

  /** What follows the root element; the document. */
  finish(): XmlDocument {
    this.misc();
    if (this.i < this.s.length) this.fail(this.s[this.i] === "<" ? "a second root element" : "text after the root element");
    return { declaration: this.declared, root: this.root as XmlElement, source: this.s };
  }

  private fail(message: string, at = this.i): never {
    const before = this.s.slice(0, at);
    const line = before.split("\n").length;
    throw new XmlParseError(message, line, at - before.lastIndexOf("\n"));
  }

  private skipSpace(): boolean {
    SPACE.lastIndex = this.i;
    SPACE.exec(this.s);
    const moved = SPACE.lastIndex > this.i;
    this.i = SPACE.lastIndex;
    return moved;
  }

  private name(what: string): string {
    NAME.lastIndex = this.i;
    const match = NAME.exec(this.s);
    if (!match) this.fail(`expected ${what}`);
    this.i = NAME.lastIndex;
    return match[0];
  }

  private expect(text: string, what: string): void {
    if (!this.s.startsWith(text, this.i)) this.fail(`expected ${what}`);
    this.i += text.length;
  }

  private declaration(): XmlDocument["declaration"] {
    this.i = 5;
    const fields: Record<string, string> = {};
    for (;;) {
      const spaced = this.skipSpace();
      if (this.s.startsWith("?>", this.i)) break;
      if (!spaced) this.fail("expected whitespace in the XML declaration");
      const name = this.name("a pseudo-attribute in the XML declaration");
      if (!["version", "encoding", "standalone"].includes(name) || name in fields) this.fail(`unexpected "${name}" in the XML declaration`);
      fields[name] = this.quoted(false);
    }
    this.i += 2;
    if (fields.version === undefined) this.fail("the XML declaration has no version", 0);
    if (!/^1\.\d+$/.test(fields.version)) this.fail(`XML version ${fields.version} is not supported`, 0);
    return { version: fields.version, encoding: fields.encoding, standalone: fields.standalone };
  }

  /** `= "value"` after an attribute name; entities decoded when `decode`. */
  private quoted(decode = true): string {
    this.skipSpace();
    this.expect("=", '"=" after the attribute name');
    this.skipSpace();
    const quote = this.s[this.i];
    if (quote !== '"' && quote !== "'") this.fail("expected a quoted attribute value");
    const start = ++this.i;
    const end = this.s.indexOf(quote, start);
    if (end < 0) this.fail("unterminated attribute value", start - 1);
    const raw = this.s.slice(start, end);
    const lt = raw.indexOf("<");
    if (lt >= 0) this.fail('"<" is not allowed in an attribute value', start + lt);
    this.i = end + 1;
    if (!decode) return raw;
    // Attribute-value normalization (XML 1.0 §3.3.3): literal whitespace becomes a space; references do not.
    return this.decode(raw.replace(/[\t\n]/g, " "), start);
  }

  /** Decodes character and predefined entity references in `raw`, which starts at `offset`. */
  private decode(raw: string, offset: number): string {
    this.checkCharacters(raw, offset);
    if (!raw.includes("&")) return raw;
    return raw.replace(/&([^;&<\s]*)(;?)/g, (whole, ref: string, semicolon: string, at: number) => {
      if (!semicolon) this.fail('"&" must start an entity or character reference (write &amp;)', offset + at);
      if (ref in PREDEFINED) return PREDEFINED[ref] as string;
      const numeric = /^#(?:x([0-9a-fA-F]+)|([0-9]+))$/.exec(ref);
      if (!numeric)
        this.fail(`entity "${whole}" is not one of the five predefined ones (DTDs and their entities are refused)`, offset + at);
      const code = numeric[1] !== undefined ? Number.parseInt(numeric[1], 16) : Number.parseInt(numeric[2] as string, 10);
      const legal =
        code === 0x9 ||
        code === 0xa ||
        code === 0xd ||
        (code >= 0x20 && code <= 0xd7ff) ||
        (code >= 0xe000 && code <= 0xfffd) ||
        (code >= 0x10000 && code <= 0x10ffff);
      if (!legal) this.fail(`character reference "${whole}" names a character XML does not allow`, offset + at);
      return String.fromCodePoint(code);
    });
  }

  private checkCharacters(raw: string, offset: number): void {
    const bad = illegalCharacterAt(raw);
    if (bad < 0) return;
    const code = raw.charCodeAt(bad).toString(16).toUpperCase().padStart(4, "0");
    this.fail(`character U+${code} is not allowed in XML`, offset + bad);
  }

  /** Comments, processing instructions and whitespace around the root element. */
  private misc(): void {
    for (;;) {
      this.skipSpace();
      if (this.s.startsWith("<!--", this.i)) this.comment();
      else if (this.s.startsWith("<?", this.i)) this.instruction();
      else if (this.s.startsWith("<!DOCTYPE", this.i)) this.fail("DOCTYPE declarations are not accepted (DTDs and entities are refused)");
      else return;
    }
  }

  private comment(): XmlComment {
    const start = this.i;
    const end = this.s.indexOf("-->", start + 4);
    if (end < 0) this.fail("unterminated comment", start);
    const dashes = this.s.indexOf("--", start + 4);
    if (dashes < end) this.fail('"--" is not allowed inside a comment', dashes);
    this.i = end + 3;
    return { type: "comment", text: this.s.slice(start + 4, end) };
  }

  private instruction(): XmlInstruction {
    const start = this.i;
    this.i += 2;
    const target = this.name("a processing-instruction target");
    if (target.toLowerCase() === "xml") this.fail("an XML declaration is only allowed at the very start", start);
    const end = this.s.indexOf("?>", this.i);
    if (end < 0) this.fail("unterminated processing instruction", start);
    this.i = end + 2;
    return { type: "instruction", target };
  }

  /**
   * Reads the root element and everything inside it, without recursion: at most `limit` markup
   * items, then returns whether the root element is closed (call again to go on where it stopped).
   */
  steps(limit: number): boolean {
    const stack = this.stack;
    const addText = (text: string) => {
      const parent = stack[stack.length - 1] as XmlElement;
      const last = parent.children[parent.children.length - 1];
      if (last?.type === "text") last.text += text;
      else parent.children.push({ type: "text", text });
    };
    for (let step = 0; step < limit; step++) {
      const start = this.i;
      if (this.s.startsWith("</", start)) {
        this.i += 2;
        const name = this.name("an end-tag name");
        this.skipSpace();
        this.expect(">", `">" to close </${name}`);
        const open = stack.pop() as XmlElement;
        if (open.name !== name) this.fail(`end tag </${name}> does not match the open <${open.name}>`, start);
        open.end = this.i;
      } else if (this.s.startsWith("<!--", start)) {
        (stack[stack.length - 1] as XmlElement).children.push(this.comment());
      } else if (this.s.startsWith("<![CDATA[", start)) {
        const end = this.s.indexOf("]]>", start + 9);
        if (end < 0) this.fail("unterminated CDATA section", start);
        const text = this.s.slice(start + 9, end);
        this.checkCharacters(text, start + 9);
        addText(text);
        this.i = end + 3;
      } else if (this.s.startsWith("<?", start)) {
        (stack[stack.length - 1] as XmlElement).children.push(this.instruction());
      } else if (this.s.startsWith("<!", start)) {
        this.fail(this.s.startsWith("<!DOCTYPE", start) ? "DOCTYPE declarations are not accepted" : "markup declarations are not accepted");
      } else if (this.s[start] === "<") {
        this.i++;
        const element: XmlElement = {
          type: "element",
          name: this.name("an element name"),
          attributes: [],
          children: [],
          start,
          end: start,
        };
        const selfClosing = this.attributes(element);
        if (stack.length) (stack[stack.length - 1] as XmlElement).children.push(element);
        else this.root = element;
        if (selfClosing) element.end = this.i;
        else stack.push(element);
      } else {
        const end = this.s.indexOf("<", start);
        if (end < 0) this.fail(`<${(stack[stack.length - 1] as XmlElement).name}> is not closed`, this.s.length);
        const raw = this.s.slice(start, end);
        const cdataEnd = raw.indexOf("]]>");
        if (cdataEnd >= 0) this.fail('"]]>" is not allowed in text', start + cdataEnd);
        addText(this.decode(raw, start));
        this.i = end;
      }
      if (!stack.length) return true;
      if (this.i >= this.s.length) this.fail(`<${(stack[stack.length - 1] as XmlElement).name}> is not closed`);
    }
    return false;
  }

  /** Reads the attributes of a start tag up to `>` or `/>`; true when the element closed itself. */
  private attributes(element: XmlElement): boolean {
    for (;;) {
      const spaced = this.skipSpace();
      if (this.s.startsWith("/>", this.i)) {
        this.i += 2;
        return true;
      }
      if (this.s[this.i] === ">") {
        this.i++;
        return false;
      }
      if (this.i >= this.s.length) this.fail(`the start tag <${element.name}> is not closed`);
      if (!spaced) this.fail(`expected whitespace, ">" or "/>" in <${element.name}>`);
      const at = this.i;
      const name = this.name(`an attribute name in <${element.name}>`);
      if (element.attributes.some((a) => a.name === name)) this.fail(`attribute "${name}" appears twice in <${element.name}>`, at);
      element.attributes.push({ name, value: this.quoted() });
    }
  }
}

const WINDOWS_1252_HIGH =
  "\u20AC\u0081\u201A\u0192\u201E\u2026\u2020\u2021\u02C6\u2030\u0160\u2039\u0152\u008D\u017D\u008F\u0090\u2018\u2019\u201C\u201D\u2022\u2013\u2014\u02DC\u2122\u0161\u203A\u0153\u009D\u017E\u0178";

/** Reads a piece of the file: `at` is its offset in the file, `last` whether it ends it (UTF-8 decodes across pieces). */
type PieceDecoder = (piece: Uint8Array, at: number, last: boolean) => string;

/** Where the text starts (past a UTF-8 BOM) and how its bytes are read, by the encoding the declaration names. */
function decoderOf(bytes: Uint8Array): { skip: number; decode: PieceDecoder } {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { skip: 3, decode: utf8Decoder() };
  if ((bytes[0] === 0xfe && bytes[1] === 0xff) || (bytes[0] === 0xff && bytes[1] === 0xfe)) {
    throw new XmlParseError("UTF-16 documents are not accepted (the SII uses ISO-8859-1)", 1, 1);
  }
  const head = decodeLatin1(bytes.subarray(0, 200));
  const declared = /^<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head)?.[1]?.toLowerCase();
  if (declared === undefined || declared === "utf-8" || declared === "utf8") return { skip: 0, decode: utf8Decoder() };
  if (["iso-8859-1", "iso8859-1", "latin1", "iso_8859-1", "l1"].includes(declared)) return { skip: 0, decode: decodeLatin1 };
  if (declared === "windows-1252" || declared === "cp1252") {
    const decode = (piece: Uint8Array) =>
      decodeLatin1(piece).replace(/[\u0080-\u009F]/g, (c) => WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80] as string);
    return { skip: 0, decode };
  }
  if (declared === "us-ascii" || declared === "ascii") {
    const decode = (piece: Uint8Array, at: number) => {
      const high = piece.findIndex((b) => b > 0x7f);
      if (high >= 0) throw new XmlParseError(`byte ${at + high} is not ASCII, yet the document declares ${declared}`, 1, 1);
      return decodeLatin1(piece);
    };
    return { skip: 0, decode };
  }
  throw new XmlParseError(`encoding "${declared}" is not supported (use ISO-8859-1 or UTF-8)`, 1, 1);
}

/**
 * Bytes of an XML file to text, by the encoding its declaration names (ISO-8859-1 / latin1,
 * windows-1252, UTF-8; no declaration means UTF-8). Anything else, or bytes that are not valid
 * in the declared encoding, is refused with a message.
 */
export function decodeXmlBytes(bytes: Uint8Array): string {
  const { skip, decode } = decoderOf(bytes);
  return decode(bytes.subarray(skip), skip, true);
}

/** Bytes decoded between two pauses: ~1–2 ms of work on Node in any encoding (a MiB took 5–30 ms). */
const DECODE_PIECE = 1 << 18;

/** The same as `decodeXmlBytes`, a piece of 256 KiB at a time with `pause` between them. */
export async function decodeXmlBytesAsync(bytes: Uint8Array, pause: Pause): Promise<string> {
  const { skip, decode } = decoderOf(bytes);
  const parts: string[] = [];
  for (let at = skip; at < bytes.length || at === skip; at += DECODE_PIECE) {
    parts.push(decode(bytes.subarray(at, at + DECODE_PIECE), at, at + DECODE_PIECE >= bytes.length));
    await pause();
  }
  return parts.join("");
}

function utf8Decoder(): PieceDecoder {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  return (piece, _at, last) => {
    try {
      return decoder.decode(piece, { stream: !last });
    } catch {
      throw new XmlParseError("the document is not valid UTF-8: declare its real encoding (e.g. ISO-8859-1)", 1, 1);
    }
  };
}

/** The element children of `element` (text between them left out). */
export function childElements(element: XmlElement): XmlElement[] {
  return element.children.filter((child): child is XmlElement => child.type === "element");
}

/** All the text inside `element`, descendants included, in document order (comments are not text). */
export function textContent(element: XmlElement): string {
  let text = "";
  for (const child of element.children) {
    if (child.type === "text") text += child.text;
    else if (child.type === "element") text += textContent(child);
  }
  return text;
}

/** The first comment or processing instruction in `element`'s subtree, or null: signed parts must hold none. */
export function markupInside(element: XmlElement): XmlComment | XmlInstruction | null {
  const pending = [element];
  for (let current = pending.pop(); current; current = pending.pop()) {
    for (const child of current.children) {
      if (child.type === "comment" || child.type === "instruction") return child;
      if (child.type === "element") pending.push(child);
    }
  }
  return null;
}

/** The one child of `parent` named `name`, or why there is not exactly one. */
export function onlyChild(parent: XmlElement, name: string): XmlElement | string {
  const found = childElements(parent).filter((c) => localName(c.name) === name);
  if (found.length === 1) return found[0] as XmlElement;
  return found.length === 0 ? `has no ${name}` : `has ${found.length} ${name} elements; it must have one`;
}

/** The element's text exactly as parsed (`doc.source` between its tags, both included). */
export function sourceOf(doc: Pick<XmlDocument, "source">, element: XmlElement): string {
  return doc.source.slice(element.start, element.end);
}

/** The element at `path` below `element` (each step the first child with that local name). */
export function findChild(element: XmlElement | undefined, ...path: string[]): XmlElement | undefined {
  let current = element;
  for (const name of path) current = current && firstChildNamed(current, name);
  return current;
}

/** The first child element of `element` named `name` (local name), read in place: documents ask this of every line. */
function firstChildNamed(element: XmlElement, name: string): XmlElement | undefined {
  for (const child of element.children) if (child.type === "element" && localName(child.name) === name) return child;
  return undefined;
}

/** The trimmed text of the element at `path`, or "" when there is none. */
export function childText(element: XmlElement | undefined, ...path: string[]): string {
  const found = findChild(element, ...path);
  return found ? textContent(found).trim() : "";
}
