// The exchange queries on one document, answered by the SII's acceptance/claim service with the
// certificate's DTE token: whether it can be assigned, its event history, and when the SII got it.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { ApiError } from "../../platform/errors.ts";
import { registerOperation, valid } from "../../platform/operation.ts";
import { Ambiente } from "../../platform/params.ts";
import { envelope, errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { isoFromSii, parseEvents, type ReclamosAnswer } from "../../sii/reclamos.ts";
import { CertAuthBody, parseCertificate } from "../credentials.ts";
import { callReclamos, DocumentParams, failureFor } from "./shared.ts";

const Query = z.object({ ambiente: Ambiente });
const ERRORS = errorResponses([400, 404, 422, 502, 503]);

const DocumentFields = {
  emisor: z.string().openapi({ example: "77123456-9" }),
  dte: z.number().int().openapi({ example: 33 }),
  folio: z.number().int().openapi({ example: 1001 }),
};
const SiiCode = {
  codigo: z.number().int().openapi({ description: "The SII's `codResp`" }),
  glosa: z.string().openapi({ description: "The SII's `descResp`" }),
};

/** Assignable: 23 (accepted, no claims) and 25 (eight days without claims: tacit acceptance). */
const ASSIGNABLE = new Set([23, 25]);
const NOT_ASSIGNABLE = new Set([20, 21, 22, 24]);

const Cesion = envelope(
  z
    .object({
      ...DocumentFields,
      cedible: z.boolean().openapi({ description: "True for the SII's codes 23 and 25" }),
      ...SiiCode,
    })
    .openapi("Assignability"),
);

const Eventos = envelope(
  z
    .object({
      ...DocumentFields,
      ...SiiCode,
      eventos: z.array(
        z.object({
          codigo: z.string().openapi({ description: "`ERM`, `ACD`, `RCD`, `RFP`, `RFT`, `NCA`, `ENC`…", example: "ACD" }),
          descripcion: z.string(),
          responsable: z.string().openapi({ description: "Who registered it, `XXXXXXXX-K`" }),
          fecha: z.string().nullable().openapi({ format: "date-time", description: "ISO 8601 with Chile's offset" }),
          fecha_sii: z.string().openapi({ description: "The SII's own `DD-MM-YYYY HH:MM:SS`", example: "29-12-2016 12:05:36" }),
        }),
      ),
    })
    .openapi("DocumentEvents"),
);

const Recepcion = envelope(
  z
    .object({
      ...DocumentFields,
      fecha_recepcion: z.string().openapi({ format: "date-time", example: "2017-02-21T19:02:03-03:00" }),
      fecha_recepcion_sii: z.string().openapi({ example: "21-02-2017 19:02:03" }),
    })
    .openapi("SiiReception"),
);

function unexpected(answer: ReclamosAnswer, service: string): ApiError {
  return new ApiError(502, "SII_GATEWAY_ERROR", `The SII answered an unexpected code ${answer.codResp}`, {
    details: { service, sii_codigo: answer.codResp, sii_message: answer.descResp },
  });
}

function route(path: string, summary: string, description: string, schema: z.ZodType) {
  return createRoute({
    method: "post",
    path,
    tags: ["Exchanges"],
    summary,
    description,
    request: { params: DocumentParams, query: Query, body: jsonBody(CertAuthBody) },
    responses: { 200: jsonContent(schema, summary), ...ERRORS },
  });
}

export function registerIntercambiosConsultas(app: OpenAPIHono<AppEnv>): void {
  const input = async (c: Context<AppEnv>) => {
    const { emisor, dte, folio } = valid(c, "param", DocumentParams);
    const { ambiente } = valid(c, "query", Query);
    const credential = await parseCertificate(c, valid(c, "json", CertAuthBody).auth.cert);
    return { ref: { emisor, tipo: dte, folio }, ambiente, credential, fields: { emisor, dte, folio } };
  };

  registerOperation(
    app,
    route(
      "/api/v1/platform/dte/intercambios/cesion/{emisor}/{dte}/{folio}",
      "Whether a document can be assigned",
      "Asks the SII (consultarDocDteCedible) with the certificate of the issuer or the receiver. `cedible` is true for codes 23 (accepted without claims) and 25 (eight days without claims); 20, 21, 22 and 24 say why not.",
      Cesion,
    ),
    async (c) => {
      const { ref, ambiente, credential, fields } = await input(c);
      const answer = await callReclamos(c, credential, ambiente, "consultarDocDteCedible", ref);
      const failure = failureFor(answer, ref, "reclamos_consultarDocDteCedible");
      if (failure) throw failure;
      if (!ASSIGNABLE.has(answer.codResp) && !NOT_ASSIGNABLE.has(answer.codResp))
        throw unexpected(answer, "reclamos_consultarDocDteCedible");
      return ok(c, { ...fields, cedible: ASSIGNABLE.has(answer.codResp), codigo: answer.codResp, glosa: answer.descResp });
    },
  );

  registerOperation(
    app,
    route(
      "/api/v1/platform/dte/intercambios/eventos/{emisor}/{dte}/{folio}",
      "Event history of a document",
      "The acceptance, claim and receipt events the SII has for the document (listarEventosHistDoc), oldest first; an empty list when it has none (code 16).",
      Eventos,
    ),
    async (c) => {
      const { ref, ambiente, credential, fields } = await input(c);
      const answer = await callReclamos(c, credential, ambiente, "listarEventosHistDoc", ref);
      const failure = failureFor(answer, ref, "reclamos_listarEventosHistDoc");
      if (failure) throw failure;
      if (answer.codResp !== 15 && answer.codResp !== 16) throw unexpected(answer, "reclamos_listarEventosHistDoc");
      const eventos = parseEvents(answer.xml).map((e) => ({ ...e, fecha: isoFromSii(e.fecha_sii) }));
      return ok(c, { ...fields, codigo: answer.codResp, glosa: answer.descResp, eventos });
    },
  );

  registerOperation(
    app,
    route(
      "/api/v1/platform/dte/intercambios/recepcion_sii/{emisor}/{dte}/{folio}",
      "When the SII received a document",
      "The SII's reception date and time of the document (consultarFechaRecepcionSii), as ISO 8601 with Chile's offset and as the SII wrote it; 404 when the SII has not received it.",
      Recepcion,
    ),
    async (c) => {
      const { ref, ambiente, credential, fields } = await input(c);
      const answer = await callReclamos(c, credential, ambiente, "consultarFechaRecepcionSii", ref);
      const raw = answer.xml.trim();
      if (!raw) throw new ApiError(404, "HTTP_404", `The SII has not received the document ${ref.tipo} ${ref.folio} of ${ref.emisor}`);
      const iso = isoFromSii(raw);
      if (!iso) {
        throw new ApiError(502, "SII_GATEWAY_ERROR", "The SII's reception date is not a date", {
          details: { service: "reclamos_consultarFechaRecepcionSii", sii_message: raw.slice(0, 200) },
        });
      }
      return ok(c, { ...fields, fecha_recepcion: iso, fecha_recepcion_sii: raw });
    },
  );
}
