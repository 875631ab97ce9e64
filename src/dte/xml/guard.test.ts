import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { unsafeXmlReason, unsafeXmlReasonAsync, XML_LIMITS } from "./guard.ts";

describe("unsafeXmlReason", () => {
  it("lets an ordinary signed document through", () => {
    const xml = `<?xml version="1.0" encoding="ISO-8859-1"?>\n<DTE version="1.0"><Documento ID="F1T33"><!-- c --><![CDATA[<x>]]><TED/></Documento></DTE>`;
    expect(unsafeXmlReason(xml)).toBeNull();
  });

  it("refuses a DOCTYPE, which entity expansion and external entities need", () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><a>&lol2;</a>`;
    expect(unsafeXmlReason(bomb)).toMatch(/DOCTYPE declarations are not accepted/);
    expect(unsafeXmlReason(`<a><!doctype x SYSTEM "file:///etc/passwd"></a>`)).toMatch(/DOCTYPE/);
  });

  it("refuses nesting deeper than the limit, and counts self-closing elements as leaves", () => {
    const deep = (n: number) => "<a>".repeat(n) + "</a>".repeat(n);
    expect(unsafeXmlReason(deep(XML_LIMITS.maxDepth))).toBeNull();
    expect(unsafeXmlReason(deep(XML_LIMITS.maxDepth + 1))).toMatch(/nested deeper than 64/);
    expect(unsafeXmlReason(`<a>${"<b/>".repeat(1000)}</a>`)).toBeNull();
  });

  it("refuses huge attribute values and names the element", () => {
    const huge = "x".repeat(XML_LIMITS.maxAttributeLength + 1);
    expect(unsafeXmlReason(`<DTE><Documento ID="${huge}"/></DTE>`)).toMatch(/attribute of <Documento> is longer than 4096/);
    expect(unsafeXmlReason(`<DTE ID='${"y".repeat(100)}'/>`)).toBeNull();
  });

  it("does not treat markup inside CDATA or comments as elements", () => {
    expect(unsafeXmlReason(`<a><![CDATA[<!DOCTYPE x>]]><!-- <!DOCTYPE y> --></a>`)).toBeNull();
  });

  it("refuses a comment, CDATA section, processing instruction or attribute value left open", () => {
    expect(unsafeXmlReason("<a><!-- x</a>")).toMatch(/a comment is not closed/);
    expect(unsafeXmlReason("<a><![CDATA[ x</a>")).toMatch(/a CDATA section is not closed/);
    expect(unsafeXmlReason("<a><?pi x</a>")).toMatch(/a processing instruction is not closed/);
    expect(unsafeXmlReason(`<a><b x="1></b></a>`)).toMatch(/attribute value of <b> is not closed/);
  });

  // Each of these took seconds with the former single regular expression, which rescanned the rest
  // of the text from every `<` that opened something never closed.
  it.each([
    ["unclosed comments", "<!--"],
    ["unclosed CDATA sections", "<![CDATA["],
    ["unclosed processing instructions", "<?x"],
    ["unclosed attribute values", '<a x="'],
    ["tags whose attributes run on without >", '<a q="<a q=" '],
    ["bare < and names", "<a<"],
  ])("reads 2 MB of %s in linear time", (_name, unit) => {
    // Ten times the text takes about ten times as long (a rescan would take a hundred): the ratio of
    // the best of three runs, so a busy machine slows both sides alike.
    const best = (bytes: number) => {
      const xml = `<r>${unit.repeat(Math.ceil(bytes / unit.length))}`;
      let fastest = Number.POSITIVE_INFINITY;
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        unsafeXmlReason(xml);
        fastest = Math.min(fastest, performance.now() - started);
      }
      return fastest;
    };
    const small = best(200_000);
    expect(best(2_000_000)).toBeLessThan(30 * small + 50);
  });
});

describe("unsafeXmlReasonAsync (screened in slices)", () => {
  const immediately = async () => {};
  // Markup of every kind the screen reads, closed and left open, and refusals at any depth.
  const piece = fc.constantFrom(
    "<a>",
    "</a>",
    "<b/>",
    "<c x=\"1\" y='2'>",
    "text",
    "<!-- c -->",
    "<!--",
    "<![CDATA[<x>]]>",
    "<![CDATA[",
    "<?pi d?>",
    "<?pi",
    "<!DOCTYPE d>",
    "<!ENTITY e>",
    '<d z="',
    `<e v="${"v".repeat(XML_LIMITS.maxAttributeLength + 1)}">`,
    "<".repeat(3),
    "<1>",
    "<a".repeat(2),
  );
  const xml = fc
    .tuple(fc.array(piece, { maxLength: 40 }), fc.nat({ max: XML_LIMITS.maxDepth + 4 }))
    .map(([pieces, depth]) => "<r>".repeat(depth) + pieces.join(""));

  it("gives the verdict of the whole-text screen, for any slice size", async () => {
    await fc.assert(
      fc.asyncProperty(xml, fc.integer({ min: 1, max: 5 }), async (text, slice) => {
        expect(await unsafeXmlReasonAsync(text, immediately, slice)).toBe(unsafeXmlReason(text));
      }),
      { numRuns: 500 },
    );
  });

  it("tells a visitor each element it opens and closes, with its depth, across slices", async () => {
    const seen: string[] = [];
    const visitor = {
      open: (name: string, depth: number) => seen.push(`+${name}@${depth}`),
      close: (depth: number) => seen.push(`-${depth}`),
    };
    const text = `<?xml version="1.0"?><!-- <x> --><a:r><b x="<y>"><c/></b><![CDATA[<z>]]><d>t</d></a:r>`;
    expect(await unsafeXmlReasonAsync(text, immediately, 1, visitor)).toBeNull();
    expect(seen).toEqual(["+a:r@1", "+b@2", "+c@3", "-3", "-2", "+d@2", "-2", "-1"]);
  });

  it("pauses between slices of a large text", async () => {
    let pauses = 0;
    const text = `<r>${"<a>x</a>".repeat(10_000)}</r>`;
    expect(await unsafeXmlReasonAsync(text, async () => void pauses++, 1000)).toBeNull();
    expect(pauses).toBeGreaterThanOrEqual(19);
  });
});
