// The certificate's three forms (CERT_FORMS in src/routes/certificate-schema.ts) as the JSON Schema
// fragments of the document's `oneOf`, converted here once instead of by every Worker isolate at
// start-up (z.toJSONSchema took a few ms of each start). `npm run schemas` writes the file the route
// imports, `npm run schemas -- --check` fails when it differs, and a test compares it with this.
import { z } from "@hono/zod-openapi";
import { CERT_FORMS } from "../src/routes/certificate-schema.ts";

/** Where the route reads the fragments from, relative to the repository's root. */
export const CREDENTIAL_FORMS_FILE = "src/routes/credential-forms.json";

/** Each form as a JSON Schema fragment for the document (the request side, without `$schema`). */
export function credentialFormSchemas(): Record<string, unknown>[] {
  return Object.values(CERT_FORMS).map((form) => {
    const { $schema: _, ...rest } = z.toJSONSchema(form, { io: "input", target: "draft-2020-12" }) as Record<string, unknown>;
    return rest;
  });
}

/** The file's text, laid out as Biome formats JSON (short arrays of strings on one line). */
export function credentialFormsText(): string {
  const json = JSON.stringify(credentialFormSchemas(), null, 2);
  return `${json.replace(/\[\n\s*("[^"\n]*"(?:,\n\s*"[^"\n]*")*)\n\s*\]/g, (_, items: string) => `[${items.split(/,\n\s*/).join(", ")}]`)}\n`;
}
