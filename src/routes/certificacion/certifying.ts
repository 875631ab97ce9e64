// What the certification routes read from every request (docs/sii-services.md §12): the company in
// the path and its representative's certificate in the body (`auth.cert`; each route reads its
// own fields). The certificate is read here because parseCertificate needs the request;
// src/services/certificacion.ts does the rest.
import type { z } from "@hono/zod-openapi";
import type { ContextWith } from "../../platform/operation.ts";
import type { Certifying } from "../../services/certificacion.ts";
import { type CertAuthBody, parseCertificate } from "../credentials.ts";
import type { Params } from "./schema.ts";

/** The company and the certificate of the representative acting for it. */
export async function certifying(
  c: ContextWith<{ param: z.output<typeof Params>; json: z.output<typeof CertAuthBody> }>,
): Promise<Certifying> {
  const { contribuyente } = c.req.valid("param");
  return { contribuyente, credential: await parseCertificate(c, c.req.valid("json").auth.cert) };
}
