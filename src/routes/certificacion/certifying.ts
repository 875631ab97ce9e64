// What the certification operations share (docs/sii-services.md §12): all run on the SII's certification
// environment with the certificate of the company's representative.
import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import type { ContextWith } from "../../platform/operation.ts";
import { siiServices } from "../../services/sii-context.ts";
import { parseTestSets } from "../../sii/certificacion-set-pruebas.ts";
import type { CookieJar } from "../../sii/cookies.ts";
import type { SiiContext } from "../../sii/http.ts";
import { type CertAuthBody, parseCertificate } from "../credentials.ts";
import type { Params } from "./schema.ts";

/** The certificate session in the certification environment, acting for the company. */
export async function certificationSession(c: ContextWith<{ param: z.output<typeof Params>; json: z.output<typeof CertAuthBody> }>) {
  const { contribuyente } = c.req.valid("param");
  // Every body of these operations carries `auth.cert`; their own fields are read by each route.
  const credential = await parseCertificate(c, c.req.valid("json").auth.cert);
  const { ctx, sessions } = await siiServices(c);
  const run = <T>(use: (ctx: SiiContext, jar: CookieJar) => Promise<T>) =>
    sessions.withCertificate(credential, "1", (jar) => use(ctx, jar), contribuyente);
  return { contribuyente, credential, run };
}

export function testSetAnswer(c: Context<AppEnv>, contribuyente: string, texto: string) {
  return ok(c, { contribuyente, texto, sets: parseTestSets(texto) });
}
