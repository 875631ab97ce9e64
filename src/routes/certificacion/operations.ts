// The software-certification operations (sii-upstream §12), all on the SII's certification
// environment with the certificate of the company's representative: apply, request the invoice
// test set (maullin's CGIs) or the boleta test set (the SII's GWT-RPC application, as
// devlas-cl/dte-sii drives it), both as text and parsed into cases, follow each set's progress,
// and read the company's data there.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { isDryRun, registerOperation, valid } from "../../platform/operation.ts";
import { DryRun, Rut } from "../../platform/params.ts";
import { envelope, errorResponses, jsonBody, jsonContent, pathParams } from "../../platform/schemas.ts";
import {
  APPLICATION_FIELDS,
  applyForCertification,
  certificationData,
  certificationProgress,
  DEFAULT_OPTIONAL_SETS,
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

/** The document types an application may include: those whose boxes devlas-cl/dte-sii marks on the SII's form. */
const APPLICATION_TYPES = Object.keys(APPLICATION_FIELDS).map(Number);

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
          casos: z.array(CaseSchema).openapi({
            description:
              "Each case to issue: send each document with `RazonRef` = `CASO <caso>` (invoice sets) or `CASO-<caso>` (the boleta set)",
          }),
          texto: z.string().openapi({ description: "The set's own text (instructions for sets without cases)" }),
        }),
      ),
    })
    .openapi("CertificationTestSet"),
);

/** The certificate session in the certification environment, acting for the company. */
async function certificationSession(c: Context<AppEnv>) {
  const { contribuyente } = valid(c, "param", Params);
  // Every body of these operations carries `auth.cert`; their own fields are read by each route.
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
      email: z.email({ error: "must be an e-mail address" }).openapi({
        description: "Contact e-mail between the SII and the company and its administrator (MAIL_SII, MAIL_SUP)",
      }),
      email_intercambio: z.email({ error: "must be an e-mail address" }).optional().openapi({
        description: "E-mail for exchanges between companies (MAIL_DTE); `email` when absent",
      }),
      software: z.string().min(1).max(100).openapi({ description: "The software's name (NOM_SW, which the SII requires)" }),
      documentos: z
        .array(
          z
            .number()
            .int()
            .refine((t) => APPLICATION_TYPES.includes(t)),
          { error: `must list types among ${APPLICATION_TYPES.join(", ")}` },
        )
        .min(1)
        .default(APPLICATION_TYPES)
        .openapi({
          description:
            "Document types to certify: 33, 34, 39, 41, 46, 52, 56, 61 (all by default, as public clients apply; exports and settlement invoices are not offered)",
        }),
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
        "Walks the SII's application (pe_ingrut, pe_datos_empresa, pe_confirma) in the certification environment; the certificate's holder becomes the company's administrator user. A company already applied is 409 `ALREADY_SUBMITTED`; a document type the SII's form does not offer is 400. Irreversible: send an `Idempotency-Key`; `dry_run` checks the certificate only.",
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
      const session = await certificationSession(c);
      if (isDryRun(c)) {
        return ok(
          c,
          { contribuyente: session.contribuyente, postulado: false, glosa: "" },
          `Preview only (dry_run): the certificate of ${session.credential.rut} is valid; nothing was sent`,
        );
      }
      const application = {
        contribuyente: session.contribuyente,
        administrador: session.credential.rut,
        email: body.email,
        emailIntercambio: body.email_intercambio,
        software: body.software,
        documentos: body.documentos,
      };
      const { glosa } = await session.run((ctx, jar) => applyForCertification(ctx, jar, application));
      return ok(c, { contribuyente: session.contribuyente, postulado: true, glosa });
    },
  );

  const SetBody = CertAuthBody.extend({
    sets: z
      .array(z.string().regex(/^SET\d{2}$/, "must be a set's box on the SII's page, SETnn"))
      .default(DEFAULT_OPTIONAL_SETS)
      .openapi({
        description:
          "Optional sets to include besides the basic one (SET01), by their box on the SII's page (SET03 dispatch guides, SET06 exempt invoices, SET07/SET08/SET09/SET15 books, SET72 purchase invoices, …); the ones the page does not offer are left out",
      }),
  }).openapi("CertificationSetRequest");
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/certificacion/facturas/solicitar_set/{contribuyente}",
      tags: TAGS,
      summary: "Request the invoices test set",
      description:
        "A new test set for a company in the process (pe_generar1 with the company, then pe_generar2 with the sets chosen): the SII's text and its cases, ready to issue with `documentos/generar`. Each request makes a new set at the SII: send an `Idempotency-Key`.",
      request: { params: Params, query: WriteQuery, body: jsonBody(SetBody) },
      responses: { 200: jsonContent(TestSets, "The test set"), ...errorResponses([400, 404, 422, 502, 503]) },
    }),
    async (c) => {
      const session = await certificationSession(c);
      if (isDryRun(c))
        return ok(c, { contribuyente: session.contribuyente, texto: "", sets: [] }, "Preview only (dry_run): nothing was requested");
      const { sets } = valid(c, "json", SetBody);
      return testSetAnswer(
        c,
        session.contribuyente,
        await session.run((ctx, jar) => requestTestSet(ctx, jar, session.contribuyente, sets)),
      );
    },
  );

  const BoletaSetBody = CertAuthBody.extend({
    email: z.email({ error: "must be an e-mail address" }).optional().openapi({
      description: "The software provider's e-mail the SII records with the set (mailProvSw)",
    }),
  }).openapi("CertificationBoletaSetRequest");
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/certificacion/boletas/solicitar_set/{contribuyente}",
      tags: TAGS,
      summary: "Request the boletas test set",
      description:
        "The boleta test set from the SII's boleta certification application (certBolElectDteInternet, GWT-RPC): the company's representatives, its application, then the set file (DownloadFileServlet), as public clients drive it. A company that did not apply for boletas is 404. Each case is a boleta (type 39) to send with `RazonRef` = `CASO-<caso>`.",
      request: { params: Params, query: WriteQuery, body: jsonBody(BoletaSetBody) },
      responses: { 200: jsonContent(TestSets, "The test set"), ...errorResponses([400, 404, 422, 502, 503]) },
    }),
    async (c) => {
      const { email } = valid(c, "json", BoletaSetBody);
      const session = await certificationSession(c);
      if (isDryRun(c))
        return ok(c, { contribuyente: session.contribuyente, texto: "", sets: [] }, "Preview only (dry_run): nothing was requested");
      return testSetAnswer(
        c,
        session.contribuyente,
        await session.run((ctx, jar) => requestBoletaTestSet(ctx, jar, session.contribuyente, session.credential.rut, email)),
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
            estado: z.string().openapi({
              description:
                "The SII's state (`EN REVISION`, `REVISADO CONFORME`, `ENVIO CON ERRORES O REPAROS`, …), or `SIN DECLARAR` / `DECLARADO` for a set still to declare",
            }),
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
      description: "Each test set with its state at the SII (pe_avance1, then pe_avance2 with the company).",
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
      description:
        "ad_empresa1, then ad_empresa2 with the company: its resolution (number 0 and the application's date while certifying), contact e-mail and software. `estado` is `EN CERTIFICACION` (resolution 0), `AUTORIZADO` (a resolution number) or `SIN RESOLUCION` (no resolution rows).",
      request: { params: Params, body: jsonBody(CertAuthBody) },
      responses: { 200: jsonContent(Data, "The company's data"), ...errorResponses([400, 422, 502, 503]) },
    }),
    async (c) => {
      const session = await certificationSession(c);
      return ok(c, await session.run((ctx, jar) => certificationData(ctx, jar, session.contribuyente)));
    },
  );
}
