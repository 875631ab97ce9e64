// GET /sandbox/v1/credentials (sandbox mode only, no token): the test taxpayers with their claves
// and certificates, ready to paste into request bodies. All of it is fake and belongs to the
// simulator; nothing here works against the real SII.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { envelope, errorResponses, jsonContent } from "../../platform/schemas.ts";
import { sandboxCredentials } from "../../services/sandbox-controls.ts";

const Taxpayer = z.object({
  rut: z.string().register(z.globalRegistry, { example: "76192083-9" }),
  razon_social: z.string(),
  kind: z.enum(["company", "person"]),
  clave: z.string().register(z.globalRegistry, { description: "For `auth.pass.clave`" }),
  certificate_holder: z.string().register(z.globalRegistry, { description: "RUT of the person the certificate belongs to" }),
  cert: z
    .object({ "cert-data": z.string(), "pkey-data": z.string() })
    .register(z.globalRegistry, { description: "The certificate as PEM: paste as `auth.cert`" }),
  pfx: z
    .object({ "pfx-data": z.string(), passphrase: z.string() })
    .register(z.globalRegistry, { description: "The same certificate as a PKCS#12 (modern PBES2/AES), base64: paste as `auth.cert`" }),
  pfx_legacy: z.object({ "pfx-data": z.string(), passphrase: z.string() }).register(z.globalRegistry, {
    description: "The same as a legacy PKCS#12 (RC2-40/3DES), as older Chilean CAs export: paste as `auth.cert`",
  }),
  samples: z.object({
    bhe_codes: z
      .array(z.string())
      .register(z.globalRegistry, { description: "Codes of BHE slips this taxpayer issued (for the BHE operations)" }),
  }),
});

export const Credentials = envelope(
  z.object({
    taxpayers: z.array(Taxpayer),
    ca_certificate: z.string().register(z.globalRegistry, { description: "The sandbox CA that issued the certificates above" }),
    caf_signing_key: z.object({
      idk: z.number().int().register(z.globalRegistry, { description: "The IDK the sandbox's CAFs carry (the real SII uses 100 and 300)" }),
      public_key: z.string().register(z.globalRegistry, { description: "PEM public key that verifies the FRMA of sandbox CAFs" }),
    }),
  }),
);

export function registerSandboxCredentials(app: OpenAPIHono<AppEnv>): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/sandbox/v1/credentials",
      operationId: "sandbox_credentials",
      tags: ["Sandbox"],
      summary: "Test taxpayers, claves and certificates of the built-in SII sandbox",
      description:
        "Sandbox mode only (404 otherwise), no token: the simulator's fake taxpayers with their claves, each certificate as PEM, " +
        "modern PKCS#12 and legacy PKCS#12 ready to paste as `auth.cert`, the sandbox CA and the key that signs its CAFs. " +
        "Nothing here works against the real SII.",
      responses: { 200: jsonContent(Credentials, "Sandbox credentials"), ...errorResponses([404]) },
    }),
    (c) => ok(c, sandboxCredentials(callerOf(c)), "Sandbox test credentials (fake; they work only against the sandbox)"),
  );
}
