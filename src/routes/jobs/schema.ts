// The shapes of the jobs and events operations: a job, a page of jobs, an event, a page of events.
import { z } from "@hono/zod-openapi";
import { Ambiente, IntegerEnum, IntegerParam, Rut } from "../../platform/params.ts";
import { envelope, pathParams } from "../../platform/schemas.ts";
import { EVENT_TYPES } from "../../ports/jobs.ts";
import { Event, Id, Job, JobState } from "../job-schema.ts";
import { Estado, RCV_TYPES, RcvPeriodo } from "../rcv-shared.ts";

export const JOB_EXAMPLE_ID = "job_4k2m9q7x1c8v3b6n5z0a2s4d";
export const JobParams = pathParams({ id: Id("job", JOB_EXAMPLE_ID).meta({ description: "The job's id" }) });
export const EventParams = pathParams({ id: Id("evt", "evt_7h3j5k1l9p2o4i6u8y0t1r3e").meta({ description: "The event's id" }) });

export const TrackTarget = z.strictObject({
  emisor: Rut.meta({ description: "The envelope's issuer (RutEmisor of its carátula)" }),
  track_id: z
    .string()
    .max(15)
    .regex(/^\d{1,15}$/, { error: "must be the SII's track id: up to 15 digits" })
    .register(z.globalRegistry, { example: "0260000001", description: "The track id `envios/enviar` returned" }),
  servicio: z.enum(["dte", "boleta"], { error: "must be dte or boleta" }).default("dte").register(z.globalRegistry, {
    description: "`dte` for envelopes sent through DTEUpload, `boleta` for EnvioBOLETA (as `envios/enviar` says)",
  }),
  ambiente: Ambiente,
});

const DownloadCommon = {
  rut: Rut.meta({ description: "The register's taxpayer: the documents' receiver for `COMPRA`, their issuer for `VENTA`" }),
  periodo: RcvPeriodo,
  dte: IntegerEnum(RCV_TYPES, `must be 0 (all) or a document type of the register (${RCV_TYPES.slice(1).join(", ")})`).meta({
    description: "Document type (SII code), or `0` every type of the period",
    example: 33,
  }),
};

/** The download: purchases in one of their states, or sales (whose register has `REGISTRO` only). */
export const DownloadTarget = z.discriminatedUnion(
  "operacion",
  [
    z.strictObject({
      operacion: z.literal("COMPRA").meta({ description: "The purchases register" }),
      ...DownloadCommon,
      estado: Estado.default("REGISTRO"),
    }),
    z.strictObject({
      operacion: z.literal("VENTA").meta({ description: "The sales register" }),
      ...DownloadCommon,
      estado: z.literal("REGISTRO", { error: "must be REGISTRO: the sales register has no other state" }).default("REGISTRO"),
    }),
  ],
  { error: "must be COMPRA or VENTA" },
);

export const JobEnvelope = envelope(Job);
export const JobCreated = envelope(
  z
    .object({
      job: Job,
      creado: z.boolean().register(z.globalRegistry, {
        description: "false: a live job of the account already did this (the envelope, the download), and is answered",
      }),
    })
    .openapi("JobCreated"),
);

export const JobsQuery = z.object({
  estado: JobState.optional(),
  before: Id("job", JOB_EXAMPLE_ID)
    .optional()
    .meta({ description: "Jobs created before this one (the `next_before` of the previous page)" }),
  limit: IntegerParam({ min: 1, max: 100, description: "Jobs per page (default 20)", example: 20 }).optional(),
});

export const JobsPage = envelope(
  z
    .object({
      jobs: z.array(Job),
      next_before: z.string().nullable().register(z.globalRegistry, { description: "`before` for the next page; null on the last" }),
    })
    .openapi("JobsPage"),
);

export const EventsQuery = z.object({
  after: IntegerParam({
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    description: "Events with a sequence above this one (default 0: from the oldest kept)",
    example: 0,
  }).optional(),
  type: z.enum(EVENT_TYPES, { error: `must be one of ${EVENT_TYPES.join(", ")}` }).optional(),
  limit: IntegerParam({ min: 1, max: 100, description: "Events per page (default 50)", example: 50 }).optional(),
});

export const EventsPage = envelope(
  z
    .object({
      events: z.array(Event),
      last_sequence: z
        .number()
        .int()
        .register(z.globalRegistry, { description: "`after` for the next page (the last sequence listed, or the `after` given)" }),
    })
    .openapi("EventsPage"),
);
