// The job as every route answers it (`jobs/*`, and `envios/enviar` with `seguir`), and the event (`jobs/events`,
// `webhooks/*`): shared by the groups.
import { z } from "@hono/zod-openapi";
import { EVENT_TYPES, JOB_STATES } from "../ports/jobs.ts";

const ID_NAMES = { job: "job", evt: "event", we: "webhook endpoint" } as const;

export const Id = (prefix: keyof typeof ID_NAMES, example: string) =>
  z
    .string()
    .max(28)
    .regex(new RegExp(`^${prefix}_[a-z0-9]{24}$`), { error: `must be a ${ID_NAMES[prefix]} id (${prefix}_ and 24 letters or digits)` })
    .register(z.globalRegistry, { example });

export const JobState = z.enum(JOB_STATES).register(z.globalRegistry, {
  description:
    "`pendiente` asks the SII again at `next_run_at`; `credenciales_requeridas` the SII no longer honours the token or session the job had: `POST …/resume` with the certificate (or, for a `descarga_rcv`, the clave) continues it; `completado` the SII gave its verdict (`estado_sii`, and one `dte_envio.processed` or `dte_envio.rejected` event) or the download's documents were fetched (`rcv_download.ready`); `fallido` it ended without one (`ultimo_error`, and a `job.failed` or `rcv_download.failed` event); `cancelado` by the account",
});

const TypeCounts = z.object({
  tipo: z.number().int(),
  informados: z.number().int(),
  aceptados: z.number().int(),
  rechazados: z.number().int(),
  reparos: z.number().int(),
});

export const Job = z
  .object({
    id: z.string(),
    tipo: z.enum(["seguimiento_envio", "vigilancia_folios", "descarga_rcv"]).register(z.globalRegistry, {
      description:
        "`seguimiento_envio`: follows a sent envelope to the SII's verdict; `vigilancia_folios`: watches a folio ledger of the account (started when a CAF is added or a threshold set) and writes `folios.low` and `folios.expiring`; `descarga_rcv`: does an RCV asynchronous download (request, poll, fetch) and keeps its documents 24 hours for `GET /api/v1/jobs/{id}/result`",
    }),
    estado: JobState,
    envio: z
      .object({ emisor: z.string(), track_id: z.string(), servicio: z.enum(["dte", "boleta"]), ambiente: z.enum(["0", "1"]) })
      .nullable()
      .register(z.globalRegistry, { description: "The envelope a `seguimiento_envio` follows; null for other kinds" }),
    folios: z
      .object({ emisor: z.string(), dte: z.number().int() })
      .nullable()
      .register(z.globalRegistry, { description: "The ledger a `vigilancia_folios` watches; null for other kinds" }),
    estado_sii: z
      .object({
        estado: z.string(),
        glosa: z.string().nullable(),
        resultado: z.enum(["procesando", "aceptado", "aceptado_con_reparos", "rechazado"]),
        documentos: z.array(TypeCounts),
        num_atencion: z.string().nullable(),
      })
      .nullable()
      .register(z.globalRegistry, {
        description:
          "What the SII answered last, as `envios/estado` answers it; null before the first question, and for kinds that ask the SII nothing",
      }),
    rcv: z
      .object({
        operacion: z.enum(["COMPRA", "VENTA"]),
        rut: z.string(),
        periodo: z.string(),
        dte: z.number().int(),
        estado: z.string(),
        solicitud_id: z.number().int().register(z.globalRegistry, { description: "The SII's id of the download request the job made" }),
      })
      .nullable()
      .register(z.globalRegistry, { description: "What a `descarga_rcv` downloads; null for other kinds" }),
    descarga: z
      .object({
        estado: z.string().register(z.globalRegistry, {
          description: "The SII's state of the request when last asked: `CREADO`, `EN PROCESO`, `TERMINADO`, or its error state",
        }),
        registros: z
          .number()
          .int()
          .register(z.globalRegistry, { description: "Documents the SII declares in the file; 0 before `TERMINADO`" }),
        resultado_hasta: z.string().nullable().register(z.globalRegistry, {
          description: "Until when `GET /api/v1/jobs/{id}/result` answers the documents (24 hours after they were fetched); null before",
        }),
      })
      .nullable()
      .register(z.globalRegistry, { description: "Where a `descarga_rcv` is; null for other kinds" }),
    intentos: z.number().int().register(z.globalRegistry, {
      description:
        "Steps run so far: for `seguimiento_envio` each one a question to the SII, charged as `envios/estado`; for `descarga_rcv` as `async/estado`, and the last, which fetches the file, as `async/detalle` too",
    }),
    ultimo_error: z
      .string()
      .nullable()
      .register(z.globalRegistry, { description: "Why the last question failed (an SII outage, the quota), or why the job ended" }),
    next_run_at: z
      .string()
      .nullable()
      .register(z.globalRegistry, { description: "When it runs next (ISO 8601); null when it does not by itself" }),
    expires_at: z.string().register(z.globalRegistry, {
      description:
        "When it ends at the latest: a `seguimiento_envio` (or a `descarga_rcv`) gives up without a verdict (or a file) 72 hours after its creation; a `vigilancia_folios` ends sooner, when its ledger has no folio left",
    }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Job");

export const Event = z
  .object({
    id: z.string().register(z.globalRegistry, { description: "The event's id: the same in the feed and in every delivery of it" }),
    type: z.enum(EVENT_TYPES),
    created_at: z.string(),
    sequence: z.number().int().register(z.globalRegistry, { description: "1, 2, 3 … per account in the order written: the feed's cursor" }),
    data: z.record(z.string(), z.unknown()).register(z.globalRegistry, {
      description: "Ids and outcomes (`job_id`, `emisor`, `track_id`, `estado`, `resultado`, the counts): never credentials, XML or rows",
    }),
  })
  .openapi("Event");
