// Uploaded XML (DTEs, envelopes, CAFs) is screened before anything parses it, in one linear pass:
// a DOCTYPE is what entity expansion and external entities need, and neither deep nesting nor
// megabyte attributes appear in any SII document. Anything refused here is answered with 400.
// Hand-written rather than one regular expression: a comment, CDATA section, processing
// instruction or quoted value left open made the expression rescan the rest of the text from every
// `<`, quadratic in the input; each closing delimiter here is searched for once, from where it
// must start.

export const XML_LIMITS = {
  /** The deepest SII document (EnvioDTE > SetDTE > DTE > Documento > Detalle > … > Signature) is ~12. */
  maxDepth: 64,
  /** Certificates and signatures are element text; attribute values are IDs, versions and URIs. */
  maxAttributeLength: 4096,
} as const;

const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isNameStart = (c: number) => isLetter(c) || c === 95; // A-Z a-z _
const isNameChar = (c: number) => isNameStart(c) || (c >= 48 && c <= 57) || c === 46 || c === 58 || c === 45; // 0-9 . : -
/** XML's whitespace (space, tab, CR, LF), plus what `\s` took before (FF, VT, NBSP…) as a safe superset. */
const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13) || c === 160 || (c > 255 && /\s/.test(String.fromCharCode(c)));

/** Markup whose end is a fixed delimiter: nothing inside it is an element. */
const SECTIONS = [
  { open: "<!--", close: "-->", what: "a comment" },
  { open: "<![CDATA[", close: "]]>", what: "a CDATA section" },
  { open: "<?", close: "?>", what: "a processing instruction" },
] as const;

/** Why this XML is refused, or null when it may be parsed. */
export function unsafeXmlReason(xml: string): string | null {
  return screen(xml, { at: xml.indexOf("<"), depth: 0 }, Number.POSITIVE_INFINITY) ?? null;
}

/** Markup items screened between two pauses: a fraction of a millisecond. */
const SCREEN_SLICE = 2048;

/**
 * What the screen tells of each element as it passes, so a reader can count (documents, lines)
 * before anything is parsed: `open` with the element's name as written and its depth (the root's
 * is 1), `close` with the depth it closes (a self-closing element is opened and closed at once).
 */
export interface ScreenVisitor {
  open(name: string, depth: number): void;
  close(depth: number): void;
}

/**
 * The same verdict as `unsafeXmlReason`, screened `slice` markup items at a time with `pause`
 * between them: an envelope of 2 000 documents (~9 MB of text) took 25–50 ms in one step.
 */
export async function unsafeXmlReasonAsync(
  xml: string,
  pause: () => Promise<void>,
  slice = SCREEN_SLICE,
  visitor?: ScreenVisitor,
): Promise<string | null> {
  const state = { at: xml.indexOf("<"), depth: 0, visitor };
  for (;;) {
    const verdict = screen(xml, state, slice);
    if (verdict !== undefined) return verdict;
    await pause();
  }
}

/** Where a screen stands: the next `<` to read (-1: none left) and the depth of open elements. */
interface ScreenState {
  at: number;
  depth: number;
  visitor?: ScreenVisitor | undefined;
}

/** Screens at most `items` pieces of markup from `state` (which it advances): the verdict, or undefined when not done. */
function screen(xml: string, state: ScreenState, items: number): string | null | undefined {
  let { at, depth } = state;
  const { visitor } = state;
  for (let n = 0; at !== -1; n++) {
    if (n === items) {
      state.at = at;
      state.depth = depth;
      return undefined;
    }
    let next = at + 1;
    const after = xml[at + 1];
    const section =
      after === "!" || after === "?" ? SECTIONS.find((s) => xml.slice(at, at + s.open.length).toUpperCase() === s.open) : undefined;
    if (section) {
      const end = xml.indexOf(section.close, at + section.open.length);
      // The parser would refuse it too; refusing here keeps the scan from reading the rest again.
      if (end === -1) return `${section.what} is not closed`;
      next = end + section.close.length;
    } else if (xml[at + 1] === "!") {
      const keyword = xml.slice(at + 2, at + 9).toUpperCase();
      if (keyword.startsWith("DOCTYPE") || keyword.startsWith("ENTITY")) {
        return `${keyword.startsWith("DOCTYPE") ? "DOCTYPE" : "ENTITY"} declarations are not accepted (entities are refused)`;
      }
    } else {
      const tag = readTag(xml, at);
      if (typeof tag === "string") return tag;
      // Not a tag: the parser refuses it; the scan goes on past what was read, never over it again.
      if (typeof tag === "number") next = Math.max(tag, at + 1);
      else {
        next = tag.end;
        if (tag.closing) {
          visitor?.close(depth);
          depth--;
        } else if (tag.selfClosing) {
          visitor?.open(tag.name, depth + 1);
          visitor?.close(depth + 1);
        } else if (++depth > XML_LIMITS.maxDepth) {
          return `elements are nested deeper than ${XML_LIMITS.maxDepth} levels`;
        } else visitor?.open(tag.name, depth);
      }
    }
    at = xml.indexOf("<", next);
  }
  return null;
}

interface Tag {
  name: string;
  closing: boolean;
  selfClosing: boolean;
  /** Index just past the `>`. */
  end: number;
}

/** The tag starting at `start` (a `<`); a string when it is refused; where reading stopped when it is not a tag. */
function readTag(xml: string, start: number): Tag | string | number {
  let i = start + 1;
  const closing = xml[i] === "/";
  if (closing) i++;
  const nameStart = i;
  if (!isNameStart(xml.charCodeAt(i))) return i;
  while (i < xml.length && isNameChar(xml.charCodeAt(i))) i++;
  const name = xml.slice(nameStart, i);
  for (;;) {
    const spaceStart = i;
    while (i < xml.length && isSpace(xml.charCodeAt(i))) i++;
    if (xml[i] === ">") return { name, closing, selfClosing: false, end: i + 1 };
    if (xml[i] === "/" && xml[i + 1] === ">") return { name, closing, selfClosing: true, end: i + 2 };
    // An attribute: whitespace, a name, `=`, a quoted value.
    if (i === spaceStart || i >= xml.length) return i;
    while (i < xml.length && !isSpace(xml.charCodeAt(i)) && xml[i] !== "=" && xml[i] !== ">") i++;
    while (i < xml.length && isSpace(xml.charCodeAt(i))) i++;
    if (xml[i] !== "=") return i;
    i++;
    while (i < xml.length && isSpace(xml.charCodeAt(i))) i++;
    const quote = xml[i];
    if (quote !== '"' && quote !== "'") return i;
    const valueEnd = xml.indexOf(quote, i + 1);
    if (valueEnd === -1) return `an attribute value of <${name}> is not closed`;
    if (valueEnd - (i + 1) > XML_LIMITS.maxAttributeLength) {
      return `an attribute of <${name}> is longer than ${XML_LIMITS.maxAttributeLength} characters`;
    }
    i = valueEnd + 1;
  }
}
