// The software-certification operations (sii-upstream §12), all on the SII's certification
// environment with the certificate of the company's representative: apply, request the invoice
// or boleta test set (as text and parsed into cases), follow each set's progress, and read the
// company's data there. The boleta set exists at the SII only in a browser application: 501 live.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { ApiError } from "../../platform/errors.ts";
import { isDryRun, registerOperation, valid } from "../../platform/operation.ts";
import { DryRun, Rut } from "../../platform/params.ts";
import { envelope, errorResponses, jsonBody, jsonContent, pathParams } from "../../platform/schemas.ts";
import {
  applyForCertification,
  certificationData,
  certificationProgress,
  requestBoletaTestSet,
  requestTestSet,
} from "../../sii/certificacion.ts";
import type { CookieJar } from "../../sii/cookies.ts";
import type { SiiContext } from "../../sii/http.ts";
import { parseTestSets } from "../../sii/set-pruebas.ts";
import { CertAuth, CertAuthBody, parseCertificate, withCertificateSession } from "../credentials.ts";
import { siiContext } from "../sii-context.ts";

const Params = pathParams({ contribuyente: Rut });
const WriteQuery = z.object({ dry_run: DryRun });
const TAGS = ["Certification"];

/** Form names of the documents an application may include (inferred: the SII's form is not public). */
const APPLICATION_DOCUMENTS = { 33: "FACT", 56: "ND", 61: "NC" } as const;

const CaseSchema = z.object({
  caso: z.string().openapi({ example: "4943173-1" }),
  documento: z.string().openapi({ example: "FACTURA ELECTRONICA" }),
  tipo: z.number().int().nullable().openapi({ description: "The SII's document type (null for a name this gateway does not know)" }),
  items: z.array(
    z.object({
      nombre: z.string(),
      cantidad: z.number().nullable(),
      unidad: z.string().nullable(),
      precio_unitario: z.number().nullable(),
      descuento_porcentaje: z.number().nullable(),
      exento: z.boolean(),
    }),
  ),
  descuento_global_porcentaje: z.number().nullable(),
  referencia: z.object({ documento: z.string(), tipo: z.number().int().nullable(), caso: z.string() }).nullable(),
  razon_referencia: z.string().nullable(),
});

const TestSets = envelope(
  z
    .object({
      contribuyente: z.string(),
      texto: z.string().openapi({ description: "The set as the SII wrote it" }),
      sets: z.array(
        z.object({
          nombre: z.string().openapi({ example: "SET BASICO" }),
          numero_atencion: z.string(),
          casos: z.array(CaseSchema).openapi({ description: "Each case to issue (send each document with `RazonRef` = `CASO <caso>`)" }),
          texto: z.string().openapi({ description: "The set's own text (instructions for sets without cases)" }),
        }),
      ),
    })
    .openapi("CertificationTestSet"),
);

/** The certificate session in the certification environment, acting for the company. */
async function certificationSession(c: Context<AppEnv>) {
  const { contribuyente } = valid(c, "param", Params);
  const credential = await parseCertificate(c, valid(c, "json", CertAuthBody).auth.cert);
  const ctx = await siiContext(c);
  const run = <T>(use: (ctx: SiiContext, jar: CookieJar) => Promise<T>) =>
    withCertificateSession(c, ctx, credential, "1", (jar) => use(ctx, jar), contribuyente);
  return { contribuyente, credential, run };
}

function testSetAnswer(c: Context<AppEnv>, contribuyente: string, texto: string) {
  return ok(c, { contribuyente, texto, sets: parseTestSets(texto) });
}

export function registerCertificacion(app: OpenAPIHono<AppEnv>): void {
  const ApplyBody = z
    .object({
      auth: z.object({ cert: CertAuth }),
      email: z.email({ error: "must be an e-mail address" }).openapi({ description: "Contact e-mail for the process" }),
      software: z.string().max(100).default("").openapi({ description: "The software's name" }),
      documentos: z
        .array(z.union([z.literal(33), z.literal(56), z.literal(61)]), { error: "must list 33, 56 and/or 61" })
        .min(1)
        .default([33, 56, 61])
        .openapi({ description: "Document types to certify (invoices 33, debit notes 56, credit notes 61)" }),
    })
    .openapi("CertificationApplication");
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/certificacion/facturas/postular/{contribuyente}",
      tags: TAGS,
      summary: "Apply the company to the certification process",
      description:
        "Walks the SII's application (pe_ingrut, pe_datos_empresa, pe_confirma) in the certification environment. A company already applied is 409 `ALREADY_SUBMITTED`. Irreversible: send an `Idempotency-Key`; `dry_run` checks the certificate only.",
      request: { params: Params, query: WriteQuery, body: jsonBody(ApplyBody) },
      responses: {
        200: jsonContent(
          envelope(z.object({ contribuyente: z.string(), postulado: z.boolean(), glosa: z.string() })),
          "The application was taken",
        ),
        ...errorResponses([400, 404, 422, 502, 503]),
      },
    }),
    async (c) => {
      const body = valid(c, "json", ApplyBody);
      const documentos = body.documentos.map((d) => APPLICATION_DOCUMENTS[d]);
      const session = await certificationSession(c);
      if (isDryRun(c)) {
        return ok(
          c,
          { contribuyente: session.contribuyente, postulado: false, glosa: "" },
          `Preview only (dry_run): the certificate of ${session.credential.rut} is valid; nothing was sent`,
        );
      }
      const application = { contribuyente: session.contribuyente, email: body.email, software: body.software, documentos };
      const { glosa } = await session.run((ctx, jar) => applyForCertification(ctx, jar, application));
      return ok(c, { contribuyente: session.contribuyente, postulado: true, glosa });
    },
  );

  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/certificacion/facturas/solicitar_set/{contribuyente}",
      tags: TAGS,
      summary: "Request the invoices test set",
      description:
        "A new test set (pe_generar1) for a company in the process: the SII's text and its cases, ready to issue with `documentos/generar`. Each request makes a new set at the SII: send an `Idempotency-Key`.",
      request: { params: Params, query: WriteQuery, body: jsonBody(CertAuthBody) },
      responses: { 200: jsonContent(TestSets, "The test set"), ...errorResponses([400, 404, 422, 502, 503]) },
    }),
    async (c) => {
      const session = await certificationSession(c);
      if (isDryRun(c))
        return ok(c, { contribuyente: session.contribuyente, texto: "", sets: [] }, "Preview only (dry_run): nothing was requested");
      return testSetAnswer(c, session.contribuyente, await session.run((ctx, jar) => requestTestSet(ctx, jar, session.contribuyente)));
    },
  );

  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/certificacion/boletas/solicitar_set/{contribuyente}",
      tags: TAGS,
      summary: "Request the boletas test set",
      description:
        "The SII offers the boleta test set only in a browser application (certBolElectDteInternet), so against the real SII this answers 501 with that reason. The sandbox has a stand-in, so clients can be built against it.",
      request: { params: Params, query: WriteQuery, body: jsonBody(CertAuthBody) },
      responses: { 200: jsonContent(TestSets, "The test set"), ...errorResponses([400, 404, 422, 501, 502, 503]) },
    }),
    async (c) => {
      if (c.get("deps").sii.mode === "live") {
        throw new ApiError(
          501,
          "NOT_IMPLEMENTED",
          "The SII gives the boleta test set only through its browser application (https://www4.sii.cl/certBolElectDteInternet/), which cannot be driven over HTTP",
        );
      }
      const session = await certificationSession(c);
      if (isDryRun(c))
        return ok(c, { contribuyente: session.contribuyente, texto: "", sets: [] }, "Preview only (dry_run): nothing was requested");
      return testSetAnswer(
        c,
        session.contribuyente,
        await session.run((ctx, jar) => requestBoletaTestSet(ctx, jar, session.contribuyente)),
      );
    },
  );

  const Progress = envelope(
    z
      .object({
        contribuyente: z.string(),
        sets: z.array(
          z.object({
            set: z.string(),
            numero_atencion: z.string(),
            estado: z.string().openapi({ description: "`POR REALIZAR`, `EN REVISION`, `REVISADO CONFORME`, or a rejection" }),
            track_id: z.string().nullable(),
            observaciones: z.string().nullable().openapi({ description: "The SII's reason when rejected" }),
          }),
        ),
      })
      .openapi("CertificationProgress"),
  );
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/certificacion/postulacion/avance/{contribuyente}",
      tags: TAGS,
      summary: "Progress of the certification",
      description: "Each test set with its state at the SII (pe_avance1).",
      request: { params: Params, body: jsonBody(CertAuthBody) },
      responses: { 200: jsonContent(Progress, "Each set's state"), ...errorResponses([400, 404, 422, 502, 503]) },
    }),
    async (c) => {
      const session = await certificationSession(c);
      return ok(c, {
        contribuyente: session.contribuyente,
        sets: await session.run((ctx, jar) => certificationProgress(ctx, jar, session.contribuyente)),
      });
    },
  );

  const Data = envelope(
    z
      .object({
        rut: z.string(),
        razon_social: z.string(),
        resolucion: z.object({ numero: z.number().int(), fecha: z.string().nullable() }).openapi({
          description: "The resolution to put in the carátula while certifying (number 0 and the date the SII gives)",
        }),
        emails: z.object({ contacto_sii: z.string().nullable(), intercambio: z.string().nullable() }),
        software: z.string().nullable(),
        estado: z.string(),
      })
      .openapi("CertificationData"),
  );
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/certificacion/contribuyentes/datos/{contribuyente}",
      tags: TAGS,
      summary: "The company's data in the certification environment",
      request: { params: Params, body: jsonBody(CertAuthBody) },
      responses: { 200: jsonContent(Data, "The company's data"), ...errorResponses([400, 422, 502, 503]) },
    }),
    async (c) => {
      const session = await certificationSession(c);
      return ok(c, await session.run((ctx, jar) => certificationData(ctx, jar, session.contribuyente)));
    },
  );
}
