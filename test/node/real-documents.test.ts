// The real documents of the test fixtures (the SII's official example, real signed DTEs and AECs, and
// copies altered on purpose): the parser reads them, genuine signatures verify and altered ones fail
// the check their name says, every DTE normalizes to its own totals; and the SII's CAF-signing
// certificates hold the keys the gateway trusts.
import { X509Certificate } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dteDocumentsFromXml } from "../../src/dte/normalize/from-xml.ts";
import { type Node, normalizeDte } from "../../src/dte/normalize/normalize.ts";
import { canonicalize } from "../../src/dte/verify/c14n.ts";
import { readEnvelope } from "../../src/dte/verify/envelope.ts";
import { SII_CAF_KEYS } from "../../src/dte/verify/timbre.ts";
import { SII_DTE_NS, verifySignatures } from "../../src/dte/verify/xmldsig.ts";
import { childElements, decodeXmlBytes, localName, parseXml, type XmlElement } from "../../src/dte/xml/parse.ts";
import { fixturePath } from "../support/fixtures.ts";

const realDocuments = fixturePath("real-documents");
const first = (element: XmlElement) => childElements(element)[0] as XmlElement;

describe("real SII documents", () => {
  const files = ["sii-example", "sii-dte", "sii-rtc"].flatMap((dir) => readdirSync(join(realDocuments, dir)).map((f) => join(dir, f)));
  for (const file of files.filter((f) => f.endsWith(".xml"))) {
    it(`parses ${file}`, () => {
      const { root } = parseXml(decodeXmlBytes(readFileSync(join(realDocuments, file))));
      expect(["DTE", "EnvioDTE", "AEC", "Documento", "Signature", "SignedInfo", "DocumentoAEC", "DTECedido", "Cesion"]).toContain(
        localName(root.name),
      );
    });
  }
  it("keeps the official example's attributes in order and reads its CRLF lines as LF", () => {
    const text = decodeXmlBytes(readFileSync(join(realDocuments, "sii-example", "F60T33-ejemplo-oficial-SII.xml")));
    expect(text).toMatch(/\r\n/);
    const { root } = parseXml(text);
    expect(root.attributes.map((a) => a.name)).toEqual(["xmlns", "xmlns:xsi", "xsi:schemaLocation", "version"]);
    const setDte = childElements(root)[0] as XmlElement;
    expect(setDte.children[0]).toEqual({ type: "text", text: "\n " });
    expect(JSON.stringify(root)).not.toMatch(/\\r/);
  });
});

const load = (dir: string, name: string) => parseXml(decodeXmlBytes(readFileSync(join(realDocuments, dir, name))));

describe("real documents", () => {
  it("reproduces the exact canonical form of a signed Documento", () => {
    const doc = load("sii-dte", "DTE--76354771-K--33--170--cleaned.xml");
    const documento = first(doc.root);
    const expected = readFileSync(join(realDocuments, "sii-dte", "DTE--76354771-K--33--170--cleaned-signed_data.xml"), "utf8");
    expect(canonicalize(documento, { mode: "inclusive", inherited: new Map([["", SII_DTE_NS]]) })).toBe(expected);
  });

  const genuine = readdirSync(join(realDocuments, "sii-dte")).filter((f) => /^DTE--[^-]+-[^-]+--\d+--\d+(--cleaned)?\.xml$/.test(f));
  it.each(genuine)("%s verifies", async (name) => {
    const checks = await verifySignatures(load("sii-dte", name));
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ valido: true, motivo: null });
  });

  it("the SII's official example is refused: its certificate is not the key that signed it (only its RSAKeyValue verifies)", async () => {
    const checks = await verifySignatures(load("sii-example", "F60T33-ejemplo-oficial-SII.xml"));
    // The digests match (the content is the one signed), but nothing ties the signing key to a certificate.
    expect(checks.map((c) => [c.referencia, c.valido, c.variante])).toEqual([
      ["#F60T33", false, "sin_namespaces"],
      ["#SetDoc", false, "inclusive"],
    ]);
    for (const check of checks) expect(check.motivo).toMatch(/RSAKeyValue key, which is not the key of the X509Certificate/);
  });

  it.each([
    ["changed-monto", /digest does not match/],
    ["empty-emails", /digest does not match/],
    ["replaced-cert", /does not verify with the signer's key/],
    ["bad-cert", /X509Certificate cannot be read/],
    ["bad-cert-no-base64", /X509Certificate cannot be read/],
  ])("the copy altered by %s fails", async (mod, reason) => {
    const [check] = await verifySignatures(load("sii-dte", `DTE--76354771-K--33--170--cleaned-mod-${mod}.xml`));
    expect(check).toMatchObject({ valido: false, motivo: expect.stringMatching(reason) });
  });

  it("finds no signature in the copy whose signature was removed", async () => {
    expect(await verifySignatures(load("sii-dte", "DTE--76354771-K--33--170--cleaned-mod-removed-signature.xml"))).toEqual([]);
  });
});

const files = [
  "sii-example/F60T33-ejemplo-oficial-SII.xml",
  ...readdirSync(join(realDocuments, "sii-dte"))
    .filter((f) => /^DTE--.*(?<!signed_data|signed_xml|signature_xml)\.xml$/.test(f))
    .map((f) => `sii-dte/${f}`),
];
const AMOUNTS = ["MntNeto", "MntExe", "TasaIVA", "IVA", "MntTotal"];

describe("real DTEs normalize to their own totals", () => {
  it("finds the official example and the real DTEs", () => {
    expect(files.length).toBeGreaterThanOrEqual(10);
  });
  for (const file of files) {
    it(file, () => {
      const { documents } = dteDocumentsFromXml(readEnvelope(new Uint8Array(readFileSync(join(realDocuments, file)))));
      for (const document of documents) {
        const own = (document.Encabezado as Node).Totales as Node;
        const kept = normalizeDte(document, "2026-11-22");
        expect((kept.dte.Encabezado as Node).Totales).toEqual(own);
        // Recomputed from the lines alone, the amounts come out the same.
        const withoutTotals = structuredClone(document);
        (withoutTotals.Encabezado as Node).Totales = {};
        const recomputed = (normalizeDte(withoutTotals, "2026-11-22").dte.Encabezado as Node).Totales as Node;
        for (const key of AMOUNTS) expect(recomputed[key] ?? 0, `${file} ${key}`).toBe(own[key] ?? 0);
      }
    });
  }
});

describe("the SII's CAF-signing keys", () => {
  it.each(["100", "300"])("IDK %s is the key of the SII's published certificate", (idk) => {
    const certificate = new X509Certificate(readFileSync(fixturePath("sii-caf-certs", `${idk}.cer`)));
    const jwk = certificate.publicKey.export({ format: "jwk" });
    const key = SII_CAF_KEYS.get(idk);
    expect(key && Buffer.from(key.modulus).toString("base64url")).toBe(jwk.n);
    expect(key && Buffer.from(key.exponent).toString("base64url")).toBe(jwk.e);
  });
});
