// What the exchange operations share: the certificate's DTE token for the acceptance/claim
// service, and the handler of the three queries on one document.
import { createRoute, type OpenAPIHono, type z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { SigningCredential } from "../../certificates/credentials.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { type Access, registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { siiServices } from "../../services/sii-context.ts";
import type { Ambiente } from "../../sii/hosts.ts";
import type { SiiContext } from "../../sii/http.ts";
import type { DocumentRef } from "../../sii/intercambios.ts";
import { CertAuthBody, parseCertificate } from "../credentials.ts";
import { AmbienteQuery, DocumentParams } from "./schema.ts";

/** Runs `use` with the certificate's DTE token (renewed once if the SII refuses it). */
export async function withReclamosToken<T>(
  c: Context<AppEnv>,
  credential: SigningCredential,
  ambiente: Ambiente,
  use: (ctx: SiiContext, token: string) => Promise<T>,
): Promise<T> {
  const { ctx, sessions } = await siiServices(c);
  return sessions.withDteToken(credential, ambiente, (token) => use(ctx, token));
}

/** A query on one document: its path, what the OpenAPI document says, and the src/sii/intercambios.ts call that answers it. */
export interface DocumentQuery<D extends object> {
  path: string;
  access: Access;
  summary: string;
  description: string;
  schema: z.ZodType;
  answer: (ctx: SiiContext, ambiente: Ambiente, token: string, ref: DocumentRef) => Promise<D>;
}

export function registerDocumentQuery<D extends object>(app: OpenAPIHono<AppEnv>, query: DocumentQuery<D>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: query.path,
      tags: ["Exchanges"],
      summary: query.summary,
      description: query.description,
      request: { params: DocumentParams, query: AmbienteQuery, body: jsonBody(CertAuthBody) },
      responses: { 200: jsonContent(query.schema, query.summary), ...errorResponses([400, 404, 422, 502, 503]) },
    }),
    query.access,
    async (c) => {
      const { emisor, dte, folio } = c.req.valid("param");
      const { ambiente } = c.req.valid("query");
      const credential = await parseCertificate(c, c.req.valid("json").auth.cert);
      const ref = { emisor, tipo: dte, folio };
      const data = await withReclamosToken(c, credential, ambiente, (ctx, token) => query.answer(ctx, ambiente, token, ref));
      return ok(c, { emisor, dte, folio, ...data });
    },
  );
}
