// The taxpayer's certificate in a request body (`auth.cert`). A PFX may also come as `file-data` +
// `file-pass`, the names the apigateway.cl SDKs send (apigatewaycl/apigateway-api-client-php,
// src/ApiBase.php `setupAuth`).
//
// A certificate comes in exactly one of three forms, each a closed object: the document says so
// with a `oneOf` generated from the three zod forms below; the server checks the same with the
// one object and the messages of `CertAuth` (an agreement test holds the two together). The
// `oneOf` is converted by `npm run schemas` into credential-forms.json rather than at module load:
// z.toJSONSchema there ran in every Worker isolate's start-up (scripts/credential-forms.ts).

import { z } from "@hono/zod-openapi";
import { FREE_KDF_ITERATIONS, KDF_ITERATIONS_PER_UNIT, MAX_KDF_ITERATIONS } from "../certificates/kdf-limit.ts";
import { MAX_CHARS } from "../platform/params.ts";
import certFormSchemas from "./credential-forms.json" with { type: "json" };
import { EXAMPLE_PFX } from "./example-credentials.ts";

const text = (description: string, max: number) => z.string().min(1).max(max).register(z.globalRegistry, { description });
const secret = (description: string) => z.string().max(MAX_CHARS.passphrase).register(z.globalRegistry, { description });
const FIELDS = {
  "cert-data": text("Certificate, PEM (with its chain if you have it)", MAX_CHARS.pemCertificate),
  "pkey-data": text("Private key, PEM (PKCS#8, PKCS#1 or encrypted PKCS#8)", MAX_CHARS.pemKey),
  "pfx-data": text("PKCS#12 container (.pfx/.p12), base64", MAX_CHARS.pfx),
  passphrase: secret("Of the encrypted key or of the PFX (may be empty for a PFX without one)"),
  "file-data": text("`pfx-data` under the name the apigateway.cl SDKs send", MAX_CHARS.pfx),
  "file-pass": secret("`passphrase` under the name the apigateway.cl SDKs send"),
};

/** The three forms of a certificate. */
export const CERT_FORMS = {
  pem: z.strictObject({ "cert-data": FIELDS["cert-data"], "pkey-data": FIELDS["pkey-data"], passphrase: FIELDS.passphrase.optional() }),
  pfx: z.strictObject({ "pfx-data": FIELDS["pfx-data"], passphrase: FIELDS.passphrase }),
  sdk: z.strictObject({ "file-data": FIELDS["file-data"], "file-pass": FIELDS["file-pass"] }),
};

/** The three forms as JSON Schema fragments (credential-forms.json, written from CERT_FORMS). */
const CERT_FORM_SCHEMAS: Record<string, unknown>[] = certFormSchemas;

const CERT_DESCRIPTION =
  "The taxpayer's certificate in one of three forms: `cert-data` + `pkey-data` (+ `passphrase` for an encrypted key); " +
  "`pfx-data` + `passphrase`; or `file-data` + `file-pass` (the same PFX under the apigateway.cl SDKs' names). " +
  "Names of two forms may not be mixed, and any other field is refused. " +
  `A PFX or encrypted key may ask for at most ${MAX_KDF_ITERATIONS} key-derivation iterations in all (MAC and every encrypted part; more is 400 \`AUTH_ERROR\`). ` +
  `What OpenSSL and Windows write (2048 or 2000 per part) derives at most ${FREE_KDF_ITERATIONS} and costs nothing extra; a file that derives more (Java keytool's 10000 per part: 2 units) pays 1 unit per started ${KDF_ITERATIONS_PER_UNIT} beyond ${FREE_KDF_ITERATIONS} ` +
  "on top of the operation's weight when the gateway reads it (not in a dry_run, which consumes no quota; the gateway keeps what it read, and a certificate read before costs nothing more), " +
  "taken before those derivations run: without the units, 429 `QUOTA_EXCEEDED`. It is given back as the weight is.";

export const CertAuth = z
  .strictObject({
    "cert-data": FIELDS["cert-data"].optional(),
    "pkey-data": FIELDS["pkey-data"].optional(),
    "pfx-data": FIELDS["pfx-data"].optional(),
    passphrase: FIELDS.passphrase.optional(),
    "file-data": FIELDS["file-data"].optional(),
    "file-pass": FIELDS["file-pass"].optional(),
  })
  .superRefine((cert, ctx) => {
    const issue = (field: string, message: string) => ctx.addIssue({ code: "custom", path: [field], message });
    for (const [alias, field] of ALIASES) {
      if (cert[alias] !== undefined && cert[field] !== undefined) issue(alias, `is ${field} under another name: give only one of them`);
    }
    const pem = cert["cert-data"] !== undefined || cert["pkey-data"] !== undefined;
    if (cert["pfx-data"] !== undefined) {
      if (pem) issue("pfx-data", "give either pfx-data or cert-data + pkey-data, not both");
      if (cert.passphrase === undefined) {
        if (cert["file-pass"] === undefined) issue("passphrase", "is required with pfx-data");
        else issue("file-pass", "goes with file-data: with pfx-data send passphrase");
      }
      return;
    }
    if (cert["file-data"] !== undefined) {
      if (pem) issue("file-data", "give either file-data or cert-data + pkey-data, not both");
      if (cert["file-pass"] === undefined) {
        if (cert.passphrase === undefined) issue("file-pass", "is required with file-data");
        else issue("passphrase", "goes with pfx-data: with file-data send file-pass");
      }
      return;
    }
    if (cert["cert-data"] === undefined) issue("cert-data", "is required (or give pfx-data)");
    if (cert["pkey-data"] === undefined) issue("pkey-data", "is required with cert-data");
    if (cert["file-pass"] !== undefined && cert.passphrase === undefined) {
      issue("file-pass", "goes with file-data: with cert-data + pkey-data send passphrase");
    }
  })
  .openapi("CertificateCredential", {
    type: "object",
    description: CERT_DESCRIPTION,
    oneOf: CERT_FORM_SCHEMAS,
    example: EXAMPLE_PFX,
  });

/** The SDKs' names and the fields they stand for. */
const ALIASES = [
  ["file-data", "pfx-data"],
  ["file-pass", "passphrase"],
] as const;
