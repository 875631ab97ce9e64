// Canonical XML and the signature checks, on hand-made cases and on a seed signed by the gateway's
// own signer (the real documents are in test/node/real-documents.test.ts).
import { describe, expect, it } from "vitest";
import { parseCertificateCredential } from "../../certificates/credentials.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../sandbox/credentials/index.ts";
import { signSeed } from "../sign/seed.ts";
import { childElements, parseXml, type XmlElement } from "../xml/parse.ts";
import { canonicalize } from "./c14n.ts";
import { verifySignatures } from "./xmldsig.ts";

const root = (xml: string) => parseXml(xml).root;
const first = (element: XmlElement) => childElements(element)[0] as XmlElement;

describe("canonical XML", () => {
  it("expands empty elements, sorts attributes, escapes text and attributes the C14N way", () => {
    const xml = `<a z="1" b='x"y' xmlns="urn:d"><e/><t>it&apos;s &quot;q&quot; &amp; &lt;tag&gt;\ttab</t><v w="a&#10;b"/></a>`;
    expect(canonicalize(root(xml), { mode: "inclusive" })).toBe(
      `<a xmlns="urn:d" b="x&quot;y" z="1"><e></e><t>it's "q" &amp; &lt;tag&gt;\ttab</t><v w="a&#xA;b"></v></a>`,
    );
  });

  it("writes inherited namespaces on the apex (inclusive), only the used ones (exclusive), or none", () => {
    const doc = root(`<r xmlns="urn:r" xmlns:x="urn:x"><s x:k="1"><u/></s></r>`);
    const s = first(doc);
    const inherited = new Map([
      ["", "urn:r"],
      ["x", "urn:x"],
    ]);
    expect(canonicalize(s, { mode: "inclusive", inherited })).toBe(`<s xmlns="urn:r" xmlns:x="urn:x" x:k="1"><u></u></s>`);
    expect(canonicalize(s, { mode: "exclusive", inherited })).toBe(`<s xmlns="urn:r" xmlns:x="urn:x" x:k="1"><u></u></s>`);
    expect(canonicalize(first(s), { mode: "exclusive", inherited })).toBe(`<u xmlns="urn:r"></u>`);
    expect(canonicalize(s, { mode: "no-namespaces", inherited })).toBe(`<s x:k="1"><u></u></s>`);
  });

  it('drops redundant declarations and undoes a default namespace with xmlns=""', () => {
    const doc = root(`<r xmlns="urn:r"><s xmlns="urn:r"><t xmlns=""/></s></r>`);
    expect(canonicalize(doc, { mode: "inclusive" })).toBe(`<r xmlns="urn:r"><s><t xmlns=""></t></s></r>`);
  });

  it("leaves out the element it is told to omit (the enveloped signature)", () => {
    const doc = root(`<r><a/><Signature/></r>`);
    expect(canonicalize(doc, { mode: "inclusive", omit: childElements(doc)[1] })).toBe("<r><a></a></r>");
  });
});

describe("signatures made by the gateway's own signer", () => {
  const credential = () =>
    parseCertificateCredential(
      { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem },
      new Date(),
    );

  it("verify, naming the signer", async () => {
    const signed = await signSeed("012345678901", await credential());
    const [check] = await verifySignatures(parseXml(signed));
    expect(check).toMatchObject({ referencia: "", valido: true, motivo: null, variante: "inclusive", firmante: { rut: "11111111-1" } });
  });

  it("fail when the content or the signature value changes", async () => {
    const signed = await signSeed("012345678901", await credential());
    const [changed] = await verifySignatures(parseXml(signed.replace("012345678901", "012345678902")));
    expect(changed).toMatchObject({ valido: false, motivo: expect.stringMatching(/digest does not match/) });
    const value = /<SignatureValue>([^<]+)</.exec(signed)?.[1] ?? "";
    const flipped = `${value[0] === "A" ? "B" : "A"}${value.slice(1)}`;
    const [forged] = await verifySignatures(parseXml(signed.replace(value, flipped)));
    expect(forged).toMatchObject({ valido: false, motivo: expect.stringMatching(/does not verify/) });
  });
});
