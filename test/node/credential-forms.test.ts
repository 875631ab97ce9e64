// The certificate forms' JSON Schema fragments are converted by `npm run schemas`, not at start-up:
// the committed file must be what z.toJSONSchema gives for CERT_FORMS now, byte for byte, and the
// document must embed it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CREDENTIAL_FORMS_FILE, credentialFormSchemas, credentialFormsText } from "../../scripts/credential-forms.ts";
import { documentApp } from "../../scripts/document-app.ts";
import { openApiDocument } from "../../src/routes/openapi.ts";

const root = join(import.meta.dirname, "..", "..");

describe("credential-forms.json", () => {
  it("is what z.toJSONSchema gives for the three forms", () => {
    const committed = readFileSync(join(root, CREDENTIAL_FORMS_FILE), "utf8");
    expect(JSON.parse(committed)).toEqual(credentialFormSchemas());
    expect(committed).toBe(credentialFormsText());
  });

  it("is the document's oneOf of CertificateCredential", () => {
    const doc = openApiDocument(documentApp()) as unknown as { components: { schemas: Record<string, { oneOf?: unknown }> } };
    expect(doc.components.schemas.CertificateCredential?.oneOf).toEqual(credentialFormSchemas());
  });
});
