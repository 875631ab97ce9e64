// Schema validation for tests: xmllint (libxml2 as WebAssembly) against the SII's schemas in the
// test fixtures, every schema preloaded so includes and imports resolve.
import { readdirSync, readFileSync } from "node:fs";
import { validateXML } from "xmllint-wasm";
import { fixturePath } from "./fixtures.ts";

export const SCHEMAS = fixturePath("sii-schemas");

/** The schema's errors for these bytes (empty when valid); `schema` is a file name in the folder. */
export async function schemaErrors(xml: Uint8Array, schema: string): Promise<string[]> {
  const files = readdirSync(SCHEMAS).filter((f) => f.endsWith(".xsd"));
  const load = (fileName: string) => ({ fileName, contents: new Uint8Array(readFileSync(`${SCHEMAS}/${fileName}`)) });
  const result = await validateXML({
    xml: { fileName: "document.xml", contents: xml },
    schema: load(schema),
    preload: files.filter((f) => f !== schema).map(load),
  });
  return result.errors.map((e) => e.message ?? e.rawMessage);
}
