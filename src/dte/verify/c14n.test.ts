import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseXml, type XmlElement } from "../xml/parse.ts";
import { type C14nMode, canonicalize, canonicalPiecesAsync } from "./c14n.ts";

const immediately = async () => {};

describe("canonicalPiecesAsync (written in slices)", () => {
  // Elements with and without prefixes, namespace declarations (default ones undone too), attributes and text to escape.
  const name = fc.constantFrom("a", "b", "ds:c", "x:d");
  const attribute = fc.constantFrom(
    ' ID="i"',
    ' xmlns="urn:d"',
    ' xmlns=""',
    ' xmlns:ds="urn:ds"',
    ' xmlns:x="urn:x"',
    ' x:k="v&amp;&#9;"',
    ' z="&lt;"',
    "",
  );
  const text = fc.constantFrom("t", "&amp;", "&lt;&gt;", "\r", "", " ");
  const { node: element } = fc.letrec<{ node: string }>((tie) => ({
    node: fc
      .tuple(
        name,
        fc.uniqueArray(attribute, { maxLength: 3, selector: (a) => a.split("=")[0] }),
        fc.array(fc.oneof(text, tie("node")), { maxLength: 4 }),
      )
      .map(([n, attrs, children]) => `<${n}${attrs.join("")}>${children.join("")}</${n}>`),
  }));
  const document = element.map((inner) => `<r xmlns:ds="urn:ds" xmlns:x="urn:x">${inner}<!-- c --><ds:Signature/></r>`);

  it("writes what the one-step canonicalization writes, in every mode and slice size", async () => {
    await fc.assert(
      fc.asyncProperty(
        document,
        fc.constantFrom<C14nMode>("inclusive", "exclusive", "no-namespaces"),
        fc.integer({ min: 1, max: 4 }),
        async (xml, mode, slice) => {
          const root = parseXml(xml).root;
          const apex = (root.children.find((c) => c.type === "element") ?? root) as XmlElement;
          const omit = root.children.find((c) => c.type === "element" && c.name === "ds:Signature") as XmlElement | undefined;
          for (const target of [root, apex]) {
            const options = { mode, inherited: new Map([["x", "urn:x"]]), omit };
            expect((await canonicalPiecesAsync(target, options, immediately, slice)).join("")).toBe(canonicalize(target, options));
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it("pauses between slices of a large part", async () => {
    const root = parseXml(`<r>${"<a>x</a>".repeat(5000)}</r>`).root;
    let pauses = 0;
    const canonical = (await canonicalPiecesAsync(root, { mode: "inclusive" }, async () => void pauses++, 1000)).join("");
    expect(canonical).toBe(`<r>${"<a>x</a>".repeat(5000)}</r>`);
    expect(pauses).toBeGreaterThanOrEqual(4);
  });
});
