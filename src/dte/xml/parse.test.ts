// The strict XML parser: the tree it builds, the encodings it reads, and what it refuses (with a position).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeLatin1 } from "../../lib/latin1.ts";
import { nextTurn } from "../../lib/yielder.ts";
import {
  childElements,
  decodeXmlBytes,
  decodeXmlBytesAsync,
  localName,
  markupInside,
  parseXml,
  parseXmlAsync,
  sourceOf,
  textContent,
  type XmlDocument,
  type XmlElement,
  XmlParseError,
} from "./parse.ts";

const refusal = (xml: string): XmlParseError => {
  try {
    parseXml(xml);
  } catch (error) {
    if (error instanceof XmlParseError) return error;
    throw error;
  }
  throw new Error(`parsed without complaint: ${xml}`);
};

describe("XML parser: the tree", () => {
  it("keeps names with their prefix, attributes in order (namespace declarations included) and exact text", () => {
    const { declaration, root } = parseXml(
      '<?xml version="1.0" encoding="ISO-8859-1"?>\n<DTE xmlns="http://www.sii.cl/SiiDte" version="1.0"><a:X xmlns:a="urn:a" b=\'2\' a:c="3">  two  words\n</a:X><E/></DTE>\n',
    );
    expect(declaration).toEqual({ version: "1.0", encoding: "ISO-8859-1", standalone: undefined });
    expect(root).toMatchObject({
      type: "element",
      name: "DTE",
      attributes: [
        { name: "xmlns", value: "http://www.sii.cl/SiiDte" },
        { name: "version", value: "1.0" },
      ],
      children: [
        {
          type: "element",
          name: "a:X",
          attributes: [
            { name: "xmlns:a", value: "urn:a" },
            { name: "b", value: "2" },
            { name: "a:c", value: "3" },
          ],
          children: [{ type: "text", text: "  two  words\n" }],
        },
        { type: "element", name: "E", attributes: [], children: [] },
      ],
    });
    expect(localName("a:X")).toBe("X");
  });

  it("decodes the five predefined entities and character references, in text and attributes", () => {
    const { root } = parseXml('<r t="&quot;a&amp;b&#x41;&#10;">&lt;&gt;&amp;&apos;&quot; &#241;&#xF1; &#128512;</r>');
    expect(root.attributes[0]?.value).toBe('"a&bA\n');
    expect(textContent(root)).toBe("<>&'\" ññ 😀");
  });

  it("reads CDATA as text joined to its neighbours; comments and processing instructions are not text", () => {
    const { root } = parseXml("<!-- before --><?pi x?><r>a<![CDATA[<b>&amp;</b>]]>c<!-- inside --><?pi y?>d</r><!-- after -->");
    expect(root.children).toEqual([
      { type: "text", text: "a<b>&amp;</b>c" },
      { type: "comment", text: " inside " },
      { type: "instruction", target: "pi" },
      { type: "text", text: "d" },
    ]);
    expect(textContent(root)).toBe("a<b>&amp;</b>cd");
  });

  it("turns CRLF and CR into LF, and literal whitespace in attributes into spaces (XML 1.0 §2.11, §3.3.3)", () => {
    const { root } = parseXml('<r a="x\r\ny\tz">1\r\n2\r3</r>');
    expect(root.attributes[0]?.value).toBe("x y z");
    expect(textContent(root)).toBe("1\n2\n3");
  });

  it("nests 10 000 levels without running out of stack (it does not recurse)", () => {
    const depth = 10_000;
    const { root } = parseXml(`${"<a>".repeat(depth)}x${"</a>".repeat(depth)}`);
    let level = 1;
    let current: XmlElement = root;
    while (childElements(current).length) {
      current = childElements(current)[0] as XmlElement;
      level++;
    }
    expect(level).toBe(depth);
  });
});

describe("XML parser: refusals name the problem and where it is", () => {
  const cases: [string, string, RegExp, number, number][] = [
    ["DOCTYPE", '<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY x "y">]><r/>', /DOCTYPE/, 2, 1],
    ["DOCTYPE inside", "<r><!DOCTYPE r></r>", /DOCTYPE/, 1, 4],
    ["unknown entity", "<r>\n  &nbsp;</r>", /"&nbsp;" is not one of the five predefined/, 2, 3],
    ["bare ampersand", "<r>a & b</r>", /must start an entity/, 1, 6],
    ["mismatched tags", "<r><a></b></r>", /end tag <\/b> does not match the open <a>/, 1, 7],
    ["unclosed element", "<r><a></a>", /<r> is not closed/, 1, 11],
    ["two roots", "<r/><s/>", /second root/, 1, 5],
    ["text after the root", "<r/>x", /text after the root/, 1, 5],
    ["no root", "<!-- only -->", /no root element/, 1, 14],
    ["duplicate attribute", '<r a="1" a="2"/>', /"a" appears twice/, 1, 10],
    ["unquoted attribute", "<r a=1/>", /quoted attribute value/, 1, 6],
    ["< in an attribute", '<r a="<"/>', /"<" is not allowed in an attribute/, 1, 7],
    ["control character", "<r>a\u0001</r>", /U\+0001 is not allowed/, 1, 5],
    ["forbidden character reference", "<r>&#0;</r>", /names a character XML does not allow/, 1, 4],
    ["-- in a comment", "<r><!-- a -- b --></r>", /"--" is not allowed inside a comment/, 1, 11],
    ["late XML declaration", '<r><?xml version="1.0"?></r>', /only allowed at the very start/, 1, 4],
    ["]]> in text", "<r>a]]>b</r>", /"]]>" is not allowed in text/, 1, 5],
    ["unterminated CDATA", "<r><![CDATA[x</r>", /unterminated CDATA/, 1, 4],
    ["attributes without a space", '<r a="1"b="2"/>', /expected whitespace/, 1, 9],
    ["XML 2.0", '<?xml version="2.0"?><r/>', /version 2.0 is not supported/, 1, 1],
  ];
  for (const [name, xml, message, line, column] of cases) {
    it(name, () => {
      const error = refusal(xml);
      expect(error.message).toMatch(message);
      expect([error.line, error.column], error.message).toEqual([line, column]);
    });
  }
});

describe("XML bytes and their declared encoding", () => {
  const latin1 = (text: string) => encodeLatin1(text);
  it("reads ISO-8859-1 byte for byte, UTF-8 by default, and windows-1252's smart quotes", () => {
    expect(decodeXmlBytes(latin1('<?xml version="1.0" encoding="ISO-8859-1"?><r>Ñuñoa €</r>'))).toContain("Ñuñoa ?");
    expect(decodeXmlBytes(new TextEncoder().encode("<r>Ñuñoa</r>"))).toBe("<r>Ñuñoa</r>");
    expect(decodeXmlBytes(new TextEncoder().encode('\uFEFF<?xml version="1.0" encoding="UTF-8"?><r>ñ</r>'))).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><r>ñ</r>',
    );
    const cp1252 = new Uint8Array([...latin1('<?xml version="1.0" encoding="windows-1252"?><r>'), 0x93, 0x80, 0x94, ...latin1("</r>")]);
    expect(decodeXmlBytes(cp1252)).toContain("<r>“€”</r>");
  });

  it("refuses latin1 bytes declared (or defaulted) as UTF-8, UTF-16 and unknown encodings", () => {
    expect(() => decodeXmlBytes(latin1("<r>Ñuñoa</r>"))).toThrow(/not valid UTF-8/);
    expect(() => decodeXmlBytes(new Uint8Array([0xff, 0xfe, 0x3c, 0]))).toThrow(/UTF-16/);
    expect(() => decodeXmlBytes(latin1('<?xml version="1.0" encoding="EBCDIC"?><r/>'))).toThrow(/"ebcdic" is not supported/);
  });
});

describe("XML parser: properties", () => {
  const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.-]{0,8}$/);
  const text = fc.string({ unit: fc.constantFrom("a", "ñ", " ", "\n", "\t", "<", ">", "&", '"', "'", "]", "😀", "é"), maxLength: 12 });
  type Tree = { name: string; attributes: [string, string][]; children: (Tree | string)[] };
  const tree: fc.Arbitrary<Tree> = fc.letrec<{ node: Tree }>((tie) => ({
    node: fc.record({
      name,
      attributes: fc.uniqueArray(fc.tuple(name, text), { selector: ([n]) => n, maxLength: 3 }),
      children: fc.array(
        fc.oneof(
          { depthSize: "small" },
          text.filter((t) => t !== ""),
          tie("node"),
        ),
        { maxLength: 4 },
      ),
    }),
  })).node;
  const escapeText = (t: string, attribute: boolean) =>
    t
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      .replace(/\n/g, attribute ? "&#10;" : "\n")
      .replace(/\t/g, attribute ? "&#9;" : "\t");
  const write = (t: Tree): string =>
    `<${t.name}${t.attributes.map(([n, v]) => ` ${n}="${escapeText(v, true)}"`).join("")}>${t.children.map((c) => (typeof c === "string" ? escapeText(c, false) : write(c))).join("")}</${t.name}>`;
  type Shape = {
    type: "element";
    name: string;
    attributes: XmlElement["attributes"];
    children: (Shape | { type: "text"; text: string })[];
  };
  const shape = (e: XmlElement): Shape => ({
    type: "element",
    name: e.name,
    attributes: e.attributes,
    children: e.children.flatMap((c): Shape["children"] => (c.type === "element" ? [shape(c)] : c.type === "text" ? [c] : [])),
  });
  const expected = (t: Tree): Shape => {
    const children: Shape["children"] = [];
    for (const c of t.children) {
      const last = children[children.length - 1];
      if (typeof c !== "string") children.push(expected(c));
      else if (last?.type === "text") last.text += c;
      else children.push({ type: "text", text: c });
    }
    return { type: "element", name: t.name, attributes: t.attributes.map(([n, v]) => ({ name: n, value: v })), children };
  };

  it("reads back exactly the tree that was written (escaped text, attributes in order)", () => {
    fc.assert(
      fc.property(tree, (t) => {
        const text = write(t);
        const doc = parseXml(text);
        expect(shape(doc.root)).toEqual(expected(t));
        // Each element's recorded span is its own text.
        expect(sourceOf(doc, doc.root)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  const markup = fc.string({
    unit: fc.constantFrom("<", ">", "/", "a", "b", "=", '"', "&", ";", "!", "-", "?", "[", "]", " ", "#", "x", "1"),
    maxLength: 40,
  });

  it("either parses or throws XmlParseError on any input, never anything else", () => {
    fc.assert(
      fc.property(markup, (input) => {
        try {
          parseXml(input);
        } catch (error) {
          expect(error).toBeInstanceOf(XmlParseError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe("XML parser: the sliced parse", () => {
  /** The sync parse's tree, or its error's message, line and column. */
  const outcome = async (parse: () => XmlDocument | Promise<XmlDocument>) => {
    try {
      return { doc: await parse() };
    } catch (error) {
      if (!(error instanceof XmlParseError)) throw error;
      return { error: [error.message, error.line, error.column] };
    }
  };
  // One markup item a slice and a macrotask after each: every point where the parse can stop is a resumption.
  const sliced = (text: string) => parseXmlAsync(text, { pause: nextTurn, steps: 1 });
  const same = async (text: string): Promise<void> => {
    expect(await outcome(() => sliced(text))).toEqual(await outcome(() => parseXml(text)));
  };
  const extra = fc.constantFrom("<!-- c -->", "<?pi data?>", "<![CDATA[a<b]]>", "\r\n", "t&amp;", "<e/>", '<f g="&#10;"/>');
  const document = fc
    .tuple(fc.array(fc.stringMatching(/^[a-z]{1,3}$/), { minLength: 1, maxLength: 4 }), fc.array(extra, { maxLength: 12 }))
    .map(([names, extras]) => {
      let inner = extras.join("");
      for (const name of names.reverse()) inner = `<${name} a="1">${extras.slice(0, 2).join("")}${inner}</${name}>`;
      return `<?xml version="1.0"?>\n<!--before-->${inner}<?after?>\n`;
    });

  // Hundreds of random documents, each parsed both ways: 4–5 s on a 2-core machine, more when it is busy.
  it("gives exactly the synchronous parse's document (spans, comments, instructions, text)", async () => {
    await fc.assert(fc.asyncProperty(document, same), { numRuns: 300 });
  });

  it("refuses what the synchronous parse refuses, with the same message, line and column", async () => {
    const broken = fc
      .tuple(document, fc.nat(), fc.constantFrom("", "<", "</x>", "&", "]]>", "<!DOCTYPE a>", "\u0001", "<a b='1' b='2'/>"))
      .map(([text, at, bad]) => text.slice(0, at % text.length) + bad + text.slice(at % text.length));
    await fc.assert(fc.asyncProperty(broken, same), { numRuns: 500 });
  });

  it("agrees with the synchronous parse on arbitrary markup", async () => {
    const markup = fc.string({
      unit: fc.constantFrom("<", ">", "/", "a", "=", '"', "&", ";", "!", "-", "?", "[", "]", " "),
      maxLength: 40,
    });
    await fc.assert(fc.asyncProperty(markup, same), { numRuns: 1000 });
  });

  it("decodes bytes a piece at a time as it decodes them whole", async () => {
    const big = `<?xml version="1.0" encoding="ISO-8859-1"?><r>${"ñandú €".repeat(400_000)}</r>`;
    const utf8 = new TextEncoder().encode(big.replace("ISO-8859-1", "UTF-8"));
    expect(await decodeXmlBytesAsync(utf8, nextTurn)).toBe(decodeXmlBytes(utf8));
    const latin = encodeLatin1(big);
    expect(await decodeXmlBytesAsync(latin, nextTurn)).toBe(decodeXmlBytes(latin));
    const invalid = utf8.slice();
    invalid[1 << 20] = 0xff;
    expect(() => decodeXmlBytes(invalid)).toThrow(/not valid UTF-8/);
    await expect(decodeXmlBytesAsync(invalid, nextTurn)).rejects.toThrow(/not valid UTF-8/);
  });
});

describe("comments and processing instructions", () => {
  it("are kept as nodes of their own, never as text or elements", () => {
    const doc = parseXml("<a>x<!--<b>1</b>--><?pi data?>y<c>z</c></a>");
    expect(doc.root.children.map((c) => c.type)).toEqual(["text", "comment", "instruction", "text", "element"]);
    expect(childElements(doc.root).map((e) => e.name)).toEqual(["c"]);
    expect(textContent(doc.root)).toBe("xyz");
    expect(markupInside(doc.root)).toEqual({ type: "comment", text: "<b>1</b>" });
    expect(markupInside(childElements(doc.root)[0] as XmlElement)).toBeNull();
  });

  it("give each element the span of its own text, self-closing ones too", () => {
    const text = '<r>\n <TED version="1.0"><DD><RE>1-9</RE><e/></DD></TED><TED/></r>';
    const doc = parseXml(text);
    const [ted, empty] = childElements(doc.root) as [XmlElement, XmlElement];
    expect(sourceOf(doc, ted)).toBe('<TED version="1.0"><DD><RE>1-9</RE><e/></DD></TED>');
    expect(sourceOf(doc, empty)).toBe("<TED/>");
    expect(sourceOf(doc, childElements(childElements(ted)[0] as XmlElement)[1] as XmlElement)).toBe("<e/>");
  });
});
