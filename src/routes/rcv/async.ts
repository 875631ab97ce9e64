// The RCV's asynchronous download, three steps per side (sii-upstream §7.6):
//   …/async/solicitar/…  ask the SII to prepare a period's file     → solicitud_id
//   …/async/estado/…     the request's state (CREADO, EN PROCESO, TERMINADO)
//   …/async/detalle/…    the finished file's documents (registros = documents, checked against the request's count)
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { ApiError } from "../../platform/errors.ts";
import { registerOperation, valid } from "../../platform/operation.ts";
import { Ambiente, Periodo, Rut } from "../../platform/params.ts";
import { envelope, errorResponses, jsonBody, jsonContent, pathParams } from "../../platform/schemas.ts";
import { type AsyncJob, type AsyncQuery, asyncFileLines, asyncJob, CsvDocuments, checkFileCount, requestAsync } from "../../sii/rcv.ts";
import { siiContext } from "../sii-context.ts";
import { checkPeriodo, Document, Dte, Estado, RcvAuthBody, withRcvSession } from "./shared.ts";
import { streamJson } from "./stream.ts";

const Job = z
  .object({
    solicitud_id: z.number().int(),
    estado: z.string().openapi({ description: "The SII's state: `CREADO`, `EN PROCESO`, `TERMINADO`, or an error" }),
    tipo_documento: z.number().int(),
    registros: z.number().int().openapi({ description: "Documents in the file (once TERMINADO)" }),
    creado: z.string().nullable(),
    terminado: z.string().nullable(),
    error: z.string().nullable(),
  })
  .openapi("RcvAsyncJob");

const JobEnvelope = envelope(Job);
const FileEnvelope = envelope(
  z.object({ solicitud_id: z.number().int(), registros: z.number().int(), documentos: z.array(Document) }).openapi("RcvAsyncDetalle"),
);
const Query = z.object({ ambiente: Ambiente });
const SolicitudId = z.coerce
  .number({ error: "must be a number" })
  .int()
  .positive({ error: "must be positive" })
  .openapi({ param: { name: "solicitud_id", in: "path" }, type: "integer", example: 800001 });

type Step = "solicitar" | "estado" | "detalle";

/**
 * The success envelope written as the file arrives, a document at a time, so a period of any size
 * passes through in flat memory. `registros` comes after `documentos`: it is known only at the end,
 * and must be what the request declared (caNumLineas), else the answer is an error (or, once
 * streaming, aborted) rather than a short list that looks whole.
 */
async function* documentsJson(job: AsyncJob, lines: ReadableStream<string>, estado: string): AsyncGenerator<string> {
  const reader = lines.getReader();
  let finished = false;
  try {
    yield `{"success":true,"message":"OK","data":{"solicitud_id":${job.solicitud_id},"documentos":[`;
    let documents: CsvDocuments | undefined;
    let count = 0;
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      if (!documents) documents = new CsvDocuments(next.value, estado);
      else {
        const done = documents.push(next.value);
        if (done) yield `${count++ ? "," : ""}${JSON.stringify(done)}`;
      }
    }
    finished = true;
    const last = documents?.end();
    if (last) yield `${count++ ? "," : ""}${JSON.stringify(last)}`;
    checkFileCount(job, count);
    yield `],"registros":${count}},"timestamp":${JSON.stringify(new Date().toISOString())}}`;
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
  }
}

function register(app: OpenAPIHono<AppEnv>, side: "compras" | "ventas", step: Step): void {
  const compras = side === "compras";
  const rutName = compras ? "receptor" : "emisor";
  const shape: Record<string, z.ZodType> = {
    [rutName]: Rut,
    periodo: Periodo,
    ...(step === "solicitar" ? {} : { solicitud_id: SolicitudId }),
    dte: Dte,
    ...(compras ? { estado: Estado } : {}),
  };
  const Params = pathParams(shape);
  const path = `/api/v1/sii/rcv/${side}/async/${step}/{${rutName}}/{periodo}${step === "solicitar" ? "" : "/{solicitud_id}"}/{dte}${compras ? "/{estado}" : ""}`;
  registerOperation(
    app,
    createRoute({
      method: "post",
      path,
      tags: ["RCV"],
      summary: `${compras ? "Purchases" : "Sales"} download, step ${step === "solicitar" ? "1: request" : step === "estado" ? "2: state" : "3: documents"}`,
      request: { params: Params, query: Query, body: jsonBody(RcvAuthBody) },
      responses: {
        200: jsonContent(
          step === "detalle" ? FileEnvelope : JobEnvelope,
          step === "detalle" ? "Every document of the file" : "The request",
        ),
        ...errorResponses([400, 404, 422, 502, 503]),
      },
    }),
    async (c) => {
      const params = valid(c, "param", Params) as { periodo: string; dte: number; estado?: string; solicitud_id?: number } & Record<
        string,
        unknown
      >;
      const rut = String(params[rutName]);
      checkPeriodo(c, params.periodo);
      const { auth } = valid(c, "json", RcvAuthBody);
      const query: AsyncQuery = {
        rut,
        periodo: params.periodo,
        tipo: params.dte,
        operacion: compras ? "COMPRA" : "VENTA",
        estado: params.estado ?? "REGISTRO",
      };
      const ctx = await siiContext(c);
      const plain = ({ blob: _blob, ...job }: { blob: string } & z.output<typeof Job>) => job;
      return withRcvSession(c, ctx, rut, auth, async (jar) => {
        if (step === "solicitar") return ok(c, plain(await requestAsync(ctx, jar, query)), "Download requested; poll its state");
        const job = await asyncJob(ctx, jar, query, params.solicitud_id ?? 0);
        if (step === "estado") return ok(c, plain(job));
        if (job.estado !== "TERMINADO") {
          throw new ApiError(400, "VALIDATION_ERROR", `Download ${job.solicitud_id} is ${job.estado}, not TERMINADO yet; poll its state`, {
            details: { estado: job.estado },
          });
        }
        const lines = await asyncFileLines(ctx, jar, query, job);
        return streamJson(c, documentsJson(job, lines, query.estado));
      });
    },
  );
}

export function registerRcvAsync(app: OpenAPIHono<AppEnv>): void {
  for (const side of ["compras", "ventas"] as const)
    for (const step of ["solicitar", "estado", "detalle"] as const) register(app, side, step);
}
