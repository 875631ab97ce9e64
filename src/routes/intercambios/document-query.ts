// What the exchange queries share: the handler of the three queries on one document (the path
// names it, the body carries the certificate; src/services/intercambios.ts answers each).
import { createRoute, type OpenAPIHono, type z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { type Access, registerOperation } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import type { DocumentQuestion } from "../../services/intercambios.ts";
import { CertAuthBody, parseCertificate } from "../credentials.ts";
import { AmbienteQuery, DocumentParams } from "./schema.ts";

/** A query on one document: its path, what the OpenAPI document says, and the service that answers it. */
export interface DocumentQuery<D extends object> {
  path: string;
  access: Access;
  summary: string;
  description: string;
  schema: z.ZodType;
  answer: DocumentQuestion<D>;
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
      // The certificate is read here: parseCertificate needs the request.
      const credential = await parseCertificate(c, c.req.valid("json").auth.cert);
      return ok(c, await query.answer(callerOf(c), credential, ambiente, { emisor, dte, folio }));
    },
  );
}
