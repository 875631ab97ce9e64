// CPU milliseconds per quota unit: every operation of the OpenAPI document called in this process
// (Node entry's storage, the built-in sandbox) at its worst allowed input, its CPU time
// (the serving thread's and the thread pool's, `cpuMicros`, the answer read to its end) set against
// the units it was charged (`X-Quota-Units`). The simulated SII's own work is timed apart and left out: in
// production it is the SII's. Each operation is called on a fresh gateway (no cached session,
// credential, page or vehicle index), so every call pays what a first call pays. Gated in full
// runs (COST_GATE). `npm run bench -- --cost` runs this part alone (bench/README.md "CPU per quota unit").
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/app.ts";
import { clearCredentialCache } from "../src/certificates/credentials.ts";
import { FREE_KDF_ITERATIONS, MAX_KDF_ITERATIONS } from "../src/certificates/kdf-limit.ts";
import { createNodeDeps } from "../src/entry/node-server.ts";
import { CHARGE_BLOCK, MAX_BATCH_DOCUMENTS, MAX_BATCH_LINES, MAX_DOCUMENT_LINES } from "../src/platform/batch-limits.ts";
import { operationsOf } from "../src/platform/operation.ts";
import { MAX_CHARS } from "../src/platform/params.ts";
import { issueToken } from "../src/platform/tokens.ts";
import { exampleInvoiceOf } from "../src/routes/example-documents.ts";
import { SUMMARY_TYPES } from "../src/routes/rcv/schema.ts";
import { SANDBOX_CA, SANDBOX_TAXPAYER_CERTS } from "../src/sandbox/credentials/index.ts";
import { buildCaf } from "../src/sandbox/folios-caf.ts";
import { createDefaultSandbox } from "../src/sandbox/index.ts";
import { ASYNC_STEP_MS } from "../src/sandbox/rcv.ts";
import { sandboxTransport } from "../src/sandbox/transport.ts";
import { DEFAULT_VEHICLE_ROWS } from "../src/sandbox/vehiculos.ts";
import { runDueJobs } from "../src/services/job-runner.ts";
import { baselineOf, operationsOf as documentedOperations, plainRequest } from "../test/support/fuzz.ts";

/** The issue's budgets: no operation above this many CPU ms per unit, the worst within this factor of the median. */
export const MS_PER_UNIT_BUDGET = 100;
export const WORST_TO_MEDIAN_BUDGET = 3;
/** On: a full run fails past either budget (by more than the bench's tolerance), or with a call over 100 ms a unit. */
export const COST_GATE = true;

export interface CostRow {
  operation: string;
  /** The input, in words. */
  input: string;
  status: number;
  units: number;
  /** The gateway's CPU time, the simulated SII's left out (median of the repetitions). */
  cpuMs: number;
  /** The simulated SII's CPU time in the same call (median), not in `cpuMs`. */
  siiMs: number;
}

interface Call {
  input: string;
  path: string;
  method: string;
  body?: string;
  /** The status the input must get (a refusal is measured as one); anything else stops the bench. */
  status: number;
  /** Text the answer must hold, so a refusal is the one meant. */
  says?: string;
}

/** One fresh gateway: its app, a token with every scope, and the simulated SII's clock and CPU. */
interface Gateway {
  app: ReturnType<typeof createApp>;
  secret: string;
  /** Moves the simulated SII's clock on (its asynchronous downloads finish in a few seconds). */
  advance(ms: number): void;
  /** CPU microseconds the simulated SII has spent so far. */
  siiMicros(): number;
  /** Runs one round of the jobs due `aheadMs` from now, as the server's timer would then. */
  runJobs(aheadMs: number): Promise<void>;
  send(call: Omit<Call, "input" | "status">): Promise<Response>;
}

const COMPANY = "76192083-9";
const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
const juanaPem = { "cert-data": juana.certPem, "pkey-data": juana.keyPem };
const clave = { pass: { rut: COMPANY, clave: "sandbox76" } };
/** The benchmark company's largest RCV period (src/sandbox/rcv.ts LARGE_PERIODS): 100 000 documents. */
const LARGEST_PERIOD = "201903";
/** Its tenfold smaller period: the largest whose synchronous detail the SII still answers (about 6 MiB). */
const LARGEST_SYNC_PERIOD = "201902";
/** Copies of one genuine Detalle in the largest upload: 14.2 MB of XML, 18.9 MB of base64, inside the xml field's 24 MiB. */
const UPLOAD_DETALLE_COPIES = 100_000;
/** Lines of each document of one charged block at the most lines a request takes: 1 000 (50 000 in all). */
const BLOCK_LINES = Math.min(MAX_DOCUMENT_LINES, Math.floor(MAX_BATCH_LINES / CHARGE_BLOCK));
const BLOCK = `${CHARGE_BLOCK} invoices × ${BLOCK_LINES} lines`;

/**
 * CPU microseconds of the threads that do a request's work: the one that serves requests and libuv's
 * pool, where Node runs WebCrypto's digests and verifications (Linux: each thread's time on a CPU,
 * /proc/self/task/<id>/schedstat). Not V8's own threads, which compile hot code and collect garbage
 * beside them: in this process, which holds every input of the table (some 70 MB), their work landed
 * in whichever call was running (one UF read measured 19 to 131 ms process-wide across five rounds,
 * its serving thread 17 to 70). Elsewhere, the process's CPU.
 */
const cpuMicros = (): number => {
  try {
    let nanos = 0;
    for (const id of readdirSync("/proc/self/task")) {
      const dir = `/proc/self/task/${id}`;
      if (Number(id) !== process.pid && readFileSync(`${dir}/comm`, "utf8").trim() !== "libuv-worker") continue;
      nanos += Number(readFileSync(`${dir}/schedstat`, "utf8").split(" ")[0]);
    }
    return nanos / 1000;
  } catch {
    const { user, system } = process.cpuUsage();
    return user + system;
  }
};
const ascending = (a: number, b: number) => a - b;
const median = (values: number[]) => values.toSorted(ascending)[Math.floor(values.length / 2)] ?? 0;
const json = (value: unknown) => JSON.stringify(value);

async function freshGateway(): Promise<Gateway> {
  const deps = await createNodeDeps({
    env: { SII_UPSTREAM: "sandbox" },
    database: ":memory:",
    publicDir: "public",
    log: { log: () => {} },
  });
  let shift = 0;
  let sii = 0;
  deps.sii = sandboxTransport(createDefaultSandbox({ now: () => Date.now() + shift }));
  // The simulator's answer is read whole inside the timed call, so its work is its own; the
  // gateway then reads the same bytes it would have read from the stream.
  const simulated = deps.sii.fetch;
  deps.sii.fetch = async (request, options) => {
    const before = cpuMicros();
    const res = await simulated(request, options);
    const body = res.status === 204 || res.status === 304 ? null : await res.arrayBuffer();
    sii += cpuMicros() - before;
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  const app = createApp(() => deps);
  const { secret } = await issueToken(
    deps.tokens,
    {
      name: "bench",
      account: "bench",
      scopes: ["sii:read", "sii:write", "settings:read", "settings:write"],
      plan: { daily_units: 1e9, monthly_units: 1e10 },
    },
    new Date(),
  );
  return {
    app,
    secret,
    advance: (ms) => {
      shift += ms;
    },
    siiMicros: () => sii,
    runJobs: async (aheadMs) => {
      await runDueJobs(deps.jobs, { ...deps, clock: { now: () => new Date(Date.now() + aheadMs) } });
    },
    send: async ({ path, method, body }) =>
      app.request(path, {
        method,
        headers: { "x-api-token": secret, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body,
      }),
  };
}

/** Answers `res`'s body as text (for the preparations, whose answers are read). */
async function answer<T>(res: Response, what: string): Promise<T> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${what}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/**
 * Juana's certificate and key as a legacy PFX (`openssl pkcs12 -export -legacy`: RC2-40 certificates,
 * 3DES key, SHA-1 MAC, as the sandbox's own) at `iterations` per derivation. Its five PKCS#12
 * derivations (the MAC, key and IV of each encrypted part) then ask for 5 × `iterations`.
 */
function legacyPfx(iterations: number): string {
  const dir = mkdtempSync(join(tmpdir(), "sii-bench-pfx-"));
  try {
    writeFileSync(join(dir, "cert.pem"), juana.certPem);
    writeFileSync(join(dir, "key.pem"), juana.keyPem);
    writeFileSync(join(dir, "ca.pem"), SANDBOX_CA.cert);
    const out = join(dir, "legacy.pfx");
    const args = ["pkcs12", "-export", "-legacy", "-iter", String(iterations), "-in", "cert.pem", "-inkey", "key.pem"];
    const made = spawnSync("openssl", [...args, "-certfile", "ca.pem", "-passout", `pass:${juana.passphrase}`, "-out", out], {
      cwd: dir,
      encoding: "utf8",
    });
    if (made.status !== 0) throw new Error(`openssl pkcs12 -export -legacy failed: ${made.stderr}`);
    return readFileSync(out).toString("base64");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The inputs the heavy cases share, built once (their preparation is not measured). */
interface Inputs {
  /** The legacy PFX at the key-derivation limit, as `auth.cert`. */
  pfx: { "pfx-data": string; passphrase: string };
  /**
   * The legacy PFX at the most iterations read for free (OpenSSL's default, 2048 a derivation): the
   * dearest a unit (past them each started KDF_ITERATIONS_PER_UNIT pays one), so the one the
   * operations' examples are called with.
   */
  freePfx: { "pfx-data": string; passphrase: string };
  /** A `generar` body: one charged block of documents, each with the most lines one may have. */
  generar: unknown;
  /** A `generar` body of the most documents a request may have: 2 000 invoices of one line. */
  generarLargest: unknown;
  /** That batch's signed envelope (base64). */
  fullBlock: string;
  /** The SII's largest envelope: 2 000 signed invoices of one line (base64). */
  largest: string;
  /** One genuine DTE with its Detalle copied UPLOAD_DETALLE_COPIES times (base64): no line limit reads it. */
  copiedDetalle: string;
}

async function buildInputs(gateway: Gateway): Promise<Inputs> {
  const derivations = 5; // the MAC, and the key and IV of each of the two encrypted parts
  const pfx = { "pfx-data": legacyPfx(Math.floor(MAX_KDF_ITERATIONS / derivations)), passphrase: juana.passphrase };
  const over = { "pfx-data": legacyPfx(Math.floor(MAX_KDF_ITERATIONS / derivations) + 1), passphrase: juana.passphrase };
  const freePfx = { "pfx-data": legacyPfx(Math.floor(FREE_KDF_ITERATIONS / derivations)), passphrase: juana.passphrase };
  const cafOf = (desde: number, hasta: number) =>
    buildCaf({ rut: COMPANY, razonSocial: "COMERCIAL SANDBOX SPA", tipo: 33, desde, hasta, fecha: "2026-11-01" });
  const cafs = [await cafOf(1, 1_000), await cafOf(1_001, MAX_BATCH_DOCUMENTS)];
  const generarBody = (cert: unknown, dte: unknown[]) => ({
    auth: { cert },
    dte,
    caf: cafs,
    resolucion: { fecha: "2014-08-22", numero: 80 },
  });
  const generate = async (cert: unknown, dte: unknown[]) =>
    (
      await answer<{ data: { envio_xml: string } }>(
        await gateway.send({ path: GENERAR, method: "POST", body: json(generarBody(cert, dte)) }),
        "generar (preparation)",
      )
    ).data.envio_xml;
  // The PFX is at the limit: the next count up is refused before anything is derived.
  const refused = await gateway.send({ path: GENERAR, method: "POST", body: json(generarBody(over, [exampleInvoiceOf(1, 1)])) });
  const refusal = await refused.text();
  if (refused.status !== 400 || !refusal.includes(`at most ${MAX_KDF_ITERATIONS} iterations`)) {
    throw new Error(`a PFX over the key-derivation limit answered ${refused.status} ${refusal.slice(0, 200)}`);
  }
  await generate(pfx, [exampleInvoiceOf(1, 1)]); // and the one at the limit is read

  const block = Array.from({ length: CHARGE_BLOCK }, (_, i) => exampleInvoiceOf(1 + i, BLOCK_LINES));
  const one = Buffer.from(await generate(juanaPem, [exampleInvoiceOf(1, 1)]), "base64").toString("latin1");
  const detalle = one.match(/<Detalle>[\s\S]*?<\/Detalle>/)?.[0];
  if (!detalle) throw new Error("the generated DTE has no Detalle");
  const copied = Buffer.from(one.replace(detalle, detalle.repeat(UPLOAD_DETALLE_COPIES)), "latin1").toString("base64");
  if (copied.length > MAX_CHARS.xml)
    throw new Error(`the largest upload is ${copied.length} characters, over the xml field's ${MAX_CHARS.xml}`);
  const most = Array.from({ length: MAX_BATCH_DOCUMENTS }, (_, i) => exampleInvoiceOf(1 + i, 1));
  return {
    pfx,
    freePfx,
    generar: generarBody(pfx, block),
    generarLargest: generarBody(pfx, most),
    fullBlock: await generate(juanaPem, block),
    largest: await generate(juanaPem, most),
    copiedDetalle: copied,
  };
}

const GENERAR = "/api/v1/platform/dte/documentos/generar";
const post = (input: string, path: string, body: unknown): Call => ({
  input,
  path,
  method: "POST",
  body: json(body),
  status: 200,
});
const xmlSize = (base64: string) => `${((base64.length * 3) / 4 / 1e6).toFixed(1)} MB of XML`;

/**
 * The worst allowed input of the operations whose cost grows with what they are given, by
 * `METHOD path`; every other operation is called with its OpenAPI example (cert credentials swapped
 * for the legacy PFX at the most key-derivation iterations read for free). A case may add refused
 * inputs as further rows.
 */
interface CaseContext {
  inputs: Inputs;
  gateway: Gateway;
  /** Another operation's example call, by `METHOD path`. */
  example(key: string): Call;
  /** The most items a list field of an operation's body takes, as the OpenAPI document says. */
  maxItems(key: string, field: string): number;
  /** Sends a call that sets the stage (not measured) and answers its body, or throws on a failure. */
  prepare<T>(call: Call): Promise<T>;
}
type Case = (context: CaseContext) => Promise<Call[]>;

const RCV = "/api/v1/sii/rcv";
const rcv = (input: string, path: string) => post(input, `${RCV}${path}`, { auth: clave });
/** An asynchronous RCV download of the largest period, asked for and finished (the simulated SII's clock moved on). */
async function finishedDownload({ gateway, prepare }: CaseContext, side: string): Promise<number> {
  const asked = await prepare<{ data: { solicitud_id: number } }>(
    rcv("", `/${side}/async/solicitar/${COMPANY}/${LARGEST_PERIOD}/33${side === "compras" ? "/REGISTRO" : ""}`),
  );
  gateway.advance(3 * ASYNC_STEP_MS);
  return asked.data.solicitud_id;
}
const LARGE = `period ${LARGEST_PERIOD} (100 000 documents), clave login`;
const SYNC = `period ${LARGEST_SYNC_PERIOD} (10 000 documents, the most the synchronous detail answers), clave login`;
/** An example call after another operation's example has set the stage. */
const after =
  (stage: string, key: string, input: string): Case =>
  async ({ example, prepare }) => {
    await prepare(example(stage));
    return [{ ...example(key), input: `${example(key).input}, after ${input}` }];
  };

/** The vehicle operations read the sandbox's workbook into the index on a gateway's first call. */
const vehicles =
  (key: string): Case =>
  async ({ example }) => [
    { ...example(key), input: `${example(key).input}: the first call, which reads the sandbox's ${DEFAULT_VEHICLE_ROWS}-row workbook` },
  ];

/** The example with its list `field` grown to the most items it takes, each made from the example's first by `item`. */
const widened =
  (key: string, field: string, item: (first: Json, i: number) => unknown): Case =>
  async ({ example, maxItems }) => {
    const call = example(key);
    const body = JSON.parse(call.body ?? "{}");
    const count = maxItems(key, field);
    body[field] = Array.from({ length: count }, (_, i) => item(body[field][0], i));
    return [{ ...call, body: json(body), input: `${call.input}, ${count} ${field}` }];
  };
const SET_RESUMEN = "POST /api/v1/sii/rcv/ventas/set_resumen/{emisor}/{periodo}";
const summaries = widened(SET_RESUMEN, "resumenes", (first, i) => ({ ...first, tipo_documento: SUMMARY_TYPES[i] }));

/** An operation on something another operation made: `stage`'s example runs first, and its answer's id (`idOf`) replaces the example's `exampleId`. */
const onMade =
  (stage: string, key: string, exampleId: string, idOf: (answer: Json) => string, input: string, status = 200, says?: string): Case =>
  async ({ example, prepare }) => {
    const id = idOf(await prepare<Json>(example(stage)));
    const call = example(key);
    return [{ ...call, path: call.path.replace(exampleId, id), status, says, input: `${call.input}, ${input}` }];
  };
const JOBS = "POST /api/v1/jobs";
const JOB_ID = "job_4k2m9q7x1c8v3b6n5z0a2s4d";
const ENDPOINTS = "POST /api/v1/webhooks/endpoints";
const ENDPOINT_ID = "we_8f2k4m6q1s3u5w7y9a0c2e4g";
const jobOf = (answer: Json) => answer.data.job.id as string;
const endpointOf = (answer: Json) => answer.data.endpoint.id as string;
/** The jobs' and the webhook endpoints' operations, each on one just made (their examples name none that exists). */
const MADE: Record<string, Case> = {
  [JOBS]: async ({ example }) => [{ ...example(JOBS), status: 201 }],
  ...Object.fromEntries(
    ["GET /api/v1/jobs/{id}", "DELETE /api/v1/jobs/{id}"].map((key) => [key, onMade(JOBS, key, JOB_ID, jobOf, "on the job just created")]),
  ),
  "GET /api/v1/jobs/{id}/result": async ({ example, prepare, gateway }) => {
    const rcv = { operacion: "COMPRA", rut: COMPANY, periodo: LARGEST_PERIOD, dte: 33 };
    const made = await prepare<Json>(post("", "/api/v1/jobs", { tipo: "descarga_rcv", auth: clave, rcv }));
    gateway.advance(3 * ASYNC_STEP_MS);
    await gateway.runJobs(60_000); // the job's first question, 30 s ± 20 % on: TERMINADO, the file fetched and kept
    const call = example("GET /api/v1/jobs/{id}/result");
    return [{ ...call, path: call.path.replace(JOB_ID, jobOf(made)), input: `a download job's kept documents, ${LARGE}` }];
  },
  "POST /api/v1/jobs/{id}/resume": onMade(
    JOBS,
    "POST /api/v1/jobs/{id}/resume",
    JOB_ID,
    jobOf,
    "a pending job (refused)",
    409,
    "JOB_STATE",
  ),
  ...Object.fromEntries(
    [
      "GET /api/v1/webhooks/endpoints/{id}",
      "PATCH /api/v1/webhooks/endpoints/{id}",
      "DELETE /api/v1/webhooks/endpoints/{id}",
      "POST /api/v1/webhooks/endpoints/{id}/test",
      "POST /api/v1/webhooks/endpoints/{id}/rotate-secret",
    ].map((key) => [key, onMade(ENDPOINTS, key, ENDPOINT_ID, endpointOf, "on the endpoint just registered")]),
  ),
  "POST /api/v1/events/{id}/redeliver": async (context) => {
    const endpoint = endpointOf(await context.prepare<Json>(context.example(ENDPOINTS)));
    const test = context.example("POST /api/v1/webhooks/endpoints/{id}/test");
    const tested = await context.prepare<Json>({ ...test, path: test.path.replace(ENDPOINT_ID, endpoint) });
    const call = context.example("POST /api/v1/events/{id}/redeliver");
    return [
      {
        ...call,
        path: call.path.replace(/evt_[a-z0-9]{24}/, tested.data.event.id as string),
        body: json({ endpoint_id: endpoint }),
        input: `${call.input}, the test event of the endpoint just registered`,
      },
    ];
  },
};

const CASES: Record<string, Case> = {
  ...MADE,
  [SET_RESUMEN]: summaries,
  "POST /api/v1/sii/rcv/ventas/set_boletas_diarias/{emisor}/{periodo}/{dte}": widened(
    "POST /api/v1/sii/rcv/ventas/set_boletas_diarias/{emisor}/{periodo}/{dte}",
    "dias",
    (first, i) => ({ ...first, dia: i + 1, folio_inicial: first.folio_inicial + 10 * i, folio_final: first.folio_final + 10 * i }),
  ),
  ...Object.fromEntries(
    [
      "GET /api/v1/sii/vehiculos/categorias/tipos/{categoria}",
      "GET /api/v1/sii/vehiculos/categorias/marcas/{categoria}",
      "GET /api/v1/sii/vehiculos/categorias/caracteristicas/{categoria}",
      "POST /api/v1/sii/vehiculos/tasacion/buscar",
    ].map((key) => [key, vehicles(key)]),
  ),
  "GET /api/v1/platform/dte/folios/{emisor}/{dte}": after(
    "POST /api/v1/platform/dte/folios/{emisor}/{dte}",
    "GET /api/v1/platform/dte/folios/{emisor}/{dte}",
    "its CAF loaded",
  ),
  "POST /api/v1/sii/rcv/ventas/delete_resumen/{emisor}/{periodo}": async (context) => {
    const [set] = await summaries(context);
    if (set) await context.prepare(set);
    return widened(
      "POST /api/v1/sii/rcv/ventas/delete_resumen/{emisor}/{periodo}",
      "tipos_documento",
      (_, i) => SUMMARY_TYPES[i],
    )(context).then((calls) => calls.map((c) => ({ ...c, input: `${c.input}, after those summaries are set` })));
  },
  ...Object.fromEntries(
    [
      "POST /api/v1/sii/certificacion/facturas/solicitar_set/{contribuyente}",
      "POST /api/v1/sii/certificacion/boletas/solicitar_set/{contribuyente}",
      "POST /api/v1/sii/certificacion/postulacion/avance/{contribuyente}",
    ].map((key) => [key, after("POST /api/v1/sii/certificacion/facturas/postular/{contribuyente}", key, "the application")]),
  ),
  "POST /api/v1/settings/proxy/test": async ({ example, prepare }) => {
    await prepare(example("PUT /api/v1/settings/proxy"));
    // In sandbox mode the simulated SII is reached in-process, not through the proxy.
    return [example("POST /api/v1/settings/proxy/test")].map((c) => ({ ...c, input: `${c.input}, after the proxy is set` }));
  },
  "POST /api/v1/sii/rcv/compras/resumen/{receptor}/{periodo}/{estado}": async () => [
    rcv(LARGE, `/compras/resumen/${COMPANY}/${LARGEST_PERIOD}/REGISTRO`),
  ],
  "POST /api/v1/sii/rcv/ventas/resumen/{emisor}/{periodo}": async () => [rcv(LARGE, `/ventas/resumen/${COMPANY}/${LARGEST_PERIOD}`)],
  "POST /api/v1/sii/rcv/ventas/get_detalle_resumen/{emisor}/{periodo}": async () => [
    rcv(LARGE, `/ventas/get_detalle_resumen/${COMPANY}/${LARGEST_PERIOD}`),
  ],
  "POST /api/v1/sii/rcv/compras/detalle/{receptor}/{periodo}/{dte}/{estado}": async () => [
    rcv(SYNC, `/compras/detalle/${COMPANY}/${LARGEST_SYNC_PERIOD}/33/REGISTRO`),
  ],
  "POST /api/v1/sii/rcv/ventas/detalle/{emisor}/{periodo}/{dte}": async () => [
    rcv(SYNC, `/ventas/detalle/${COMPANY}/${LARGEST_SYNC_PERIOD}/33`),
  ],
  "POST /api/v1/sii/rcv/compras/detalle/documento/{receptor}/{periodo}/{dte}/{folio}": async () => [
    rcv(SYNC, `/compras/detalle/documento/${COMPANY}/${LARGEST_SYNC_PERIOD}/33/1000`),
  ],
  "POST /api/v1/sii/rcv/compras/async/solicitar/{receptor}/{periodo}/{dte}/{estado}": async () => [
    rcv(LARGE, `/compras/async/solicitar/${COMPANY}/${LARGEST_PERIOD}/33/REGISTRO`),
  ],
  "POST /api/v1/sii/rcv/ventas/async/solicitar/{emisor}/{periodo}/{dte}": async () => [
    rcv(LARGE, `/ventas/async/solicitar/${COMPANY}/${LARGEST_PERIOD}/33`),
  ],
  "POST /api/v1/sii/rcv/compras/async/estado/{receptor}/{periodo}/{solicitud_id}/{dte}/{estado}": async (context) => [
    rcv(
      `${LARGE}, download finished`,
      `/compras/async/estado/${COMPANY}/${LARGEST_PERIOD}/${await finishedDownload(context, "compras")}/33/REGISTRO`,
    ),
  ],
  "POST /api/v1/sii/rcv/ventas/async/estado/{emisor}/{periodo}/{solicitud_id}/{dte}": async (context) => [
    rcv(`${LARGE}, download finished`, `/ventas/async/estado/${COMPANY}/${LARGEST_PERIOD}/${await finishedDownload(context, "ventas")}/33`),
  ],
  "POST /api/v1/sii/rcv/compras/async/detalle/{receptor}/{periodo}/{solicitud_id}/{dte}/{estado}": async (context) => [
    rcv(LARGE, `/compras/async/detalle/${COMPANY}/${LARGEST_PERIOD}/${await finishedDownload(context, "compras")}/33/REGISTRO`),
  ],
  "POST /api/v1/sii/rcv/ventas/async/detalle/{emisor}/{periodo}/{solicitud_id}/{dte}": async (context) => [
    rcv(LARGE, `/ventas/async/detalle/${COMPANY}/${LARGEST_PERIOD}/${await finishedDownload(context, "ventas")}/33`),
  ],
  "POST /api/v1/platform/dte/documentos/generar": async ({ inputs }) => [
    post(`${BLOCK} (one charged block), legacy PFX at the KDF limit`, GENERAR, inputs.generar),
    post(`${MAX_BATCH_DOCUMENTS} invoices of one line, legacy PFX at the KDF limit`, GENERAR, inputs.generarLargest),
  ],
  "POST /api/v1/platform/dte/documentos/pdf": async ({ inputs }) => [
    // 5: the most `copias` takes (documentos/pdf's schema).
    post(`envelope of ${BLOCK}, 5 copies + cedible`, "/api/v1/platform/dte/documentos/pdf", {
      xml: inputs.fullBlock,
      copias: 5,
      cedible: true,
      oficina_sii: "PROVIDENCIA",
    }),
    largestUpload(inputs, "/api/v1/platform/dte/documentos/pdf"),
    refusedUpload(inputs, "/api/v1/platform/dte/documentos/pdf"),
  ],
  "POST /api/v1/platform/dte/documentos/escpos": async ({ inputs }) => [
    post(`envelope of ${BLOCK}`, "/api/v1/platform/dte/documentos/escpos", { xml: inputs.fullBlock }),
    largestUpload(inputs, "/api/v1/platform/dte/documentos/escpos"),
    refusedUpload(inputs, "/api/v1/platform/dte/documentos/escpos"),
  ],
  "POST /api/v1/platform/dte/formatos/json": async ({ inputs }) => [
    post(`envelope of ${BLOCK}`, "/api/v1/platform/dte/formatos/json", { xml: inputs.fullBlock }),
    largestUpload(inputs, "/api/v1/platform/dte/formatos/json"),
    refusedUpload(inputs, "/api/v1/platform/dte/formatos/json"),
  ],
  "POST /api/v1/platform/dte/envios/verificar": async ({ inputs }) => [
    post(`envelope of ${BLOCK}`, "/api/v1/platform/dte/envios/verificar", { xml: inputs.fullBlock }),
    largestUpload(inputs, "/api/v1/platform/dte/envios/verificar"),
    refusedUpload(inputs, "/api/v1/platform/dte/envios/verificar"),
  ],
  "POST /api/v1/platform/dte/envios/enviar": async ({ inputs }) => [
    post(
      `the largest envelope, ${MAX_BATCH_DOCUMENTS} invoices (${xmlSize(inputs.largest)}), legacy PFX at the KDF limit`,
      "/api/v1/platform/dte/envios/enviar",
      { auth: { cert: inputs.pfx }, xml: inputs.largest },
    ),
  ],
};

/** The SII's largest envelope (2 000 invoices of one line) to an operation that reads an upload. */
/** The fields an upload's operation needs besides the XML: the PDF's stamp block names the SII office. */
const uploadFields = (path: string) => (path.endsWith("/documentos/pdf") ? { oficina_sii: "PROVIDENCIA" } : {});

const largestUpload = (inputs: Inputs, path: string): Call =>
  post(`the largest envelope, ${MAX_BATCH_DOCUMENTS} invoices (${xmlSize(inputs.largest)})`, path, {
    xml: inputs.largest,
    ...uploadFields(path),
  });

/** The largest upload (no document line limit reads it) to an operation that refuses its lines. */
const refusedUpload = (inputs: Inputs, path: string): Call => ({
  ...post(`refused: one DTE with ${UPLOAD_DETALLE_COPIES} Detalle lines (${xmlSize(inputs.copiedDetalle)})`, path, {
    xml: inputs.copiedDetalle,
    ...uploadFields(path),
  }),
  status: 400,
  says: `has ${UPLOAD_DETALLE_COPIES} Detalle lines`,
});

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is read by field name.
type Json = any;
/** `schema` with its `$ref` followed. */
const resolved = (doc: Json, schema: Json): Json =>
  schema?.$ref
    ? resolved(
        doc,
        schema.$ref
          .slice(2)
          .split("/")
          .reduce((node: Json, name: string) => node?.[name], doc),
      )
    : schema;

function maxItemsOf(doc: Json, key: string, field: string): number {
  const operation = documentedOperations(doc).find((o) => `${o.method} ${o.path}` === key);
  const body = resolved(doc, operation?.bodySchema);
  // A body that adds fields to the credential's schema is an `allOf` of the two.
  const parts: Json[] = [body, ...(body?.allOf ?? []).map((part: Json) => resolved(doc, part))];
  const max = parts.map((part) => resolved(doc, part?.properties?.[field])?.maxItems).find((m) => m !== undefined);
  if (typeof max !== "number") throw new Error(`${key}: the document gives ${field} no maxItems`);
  return max;
}

/** The OpenAPI example of an operation, its certificate swapped for the legacy PFX at the free iterations. */
function exampleCall(doc: unknown, key: string, inputs: Inputs): Call {
  const operation = documentedOperations(doc).find((o) => `${o.method} ${o.path}` === key);
  if (!operation) throw new Error(`${key} is not in the OpenAPI document`);
  const request = plainRequest(operation, baselineOf(doc, operation), []);
  // The fuzz helper's sample of a field that is a string or an object spreads the string's
  // characters into the object ("0": "x", …): dropped, they are no field of the operation.
  const sampled = request.body === undefined ? undefined : JSON.parse(request.body);
  let body = sampled && Object.fromEntries(Object.entries(sampled).filter(([name]) => !/^\d+$/.test(name)));
  let input = "the OpenAPI example";
  if (body?.auth?.cert) {
    body = { ...body, auth: { cert: inputs.freePfx } };
    input += ", legacy PFX at the free KDF iterations";
  } else if (body?.auth?.pass) input += ", clave login";
  const query = new URLSearchParams(request.query).toString();
  return {
    input,
    path: query ? `${request.path}?${query}` : request.path,
    method: request.method,
    body: body === undefined ? undefined : json(body),
    status: 200,
  };
}

/** One call, timed: its CPU (the simulated SII's apart), status and units; the answer read to its end. */
async function measure(gateway: Gateway, call: Call) {
  clearCredentialCache(); // every credential is read as on its first use in an isolate
  const sii = gateway.siiMicros();
  const before = cpuMicros();
  const res = await gateway.send(call);
  const pieces: Uint8Array[] = [];
  for await (const piece of res.body ?? []) if (call.says !== undefined) pieces.push(piece);
  const total = cpuMicros() - before;
  const siiMs = (gateway.siiMicros() - sii) / 1000;
  const said = call.says === undefined || Buffer.concat(pieces).toString("utf8").includes(call.says);
  if (res.status !== call.status || !said) {
    throw new Error(`${call.method} ${call.path} (${call.input}): ${res.status}, expected ${call.status} ${call.says ?? ""}`);
  }
  return { status: res.status, units: Number(res.headers.get("x-quota-units") ?? "NaN"), cpuMs: total / 1000 - siiMs, siiMs };
}

/**
 * Every operation's rows, each the median of `repetitions` calls after one round that is not counted
 * (the code's first runs, compiled as it goes, cost two to four times a later call's); `only`: the
 * operations whose path holds it.
 */
export async function costRows(repetitions: number, only = ""): Promise<CostRow[]> {
  const measured = new Map<string, { operation: string; call: Call; runs: Awaited<ReturnType<typeof measure>>[] }>();
  const first = await freshGateway();
  const inputs = await buildInputs(first);
  const doc = await (await first.app.request("/openapi.json")).json();
  const listed = new Set(operationsOf(first.app).map((o) => `${o.method} ${o.path}`));
  const unknown = Object.keys(CASES).filter((key) => !listed.has(key));
  if (unknown.length) throw new Error(`cases for operations the app does not list: ${unknown.join(", ")}`);
  for (let round = -1; round < repetitions; round++) {
    for (const op of operationsOf(first.app).filter((o) => o.path.includes(only))) {
      const key = `${op.method} ${op.path}`;
      // A fresh gateway for each operation: no session, page, index or credential left by another.
      const gateway = await freshGateway();
      const example = (other: string) => exampleCall(doc, other, inputs);
      const prepare = async <T>(call: Call) => answer<T>(await gateway.send(call), `${call.method} ${call.path} (preparation)`);
      const maxItems = (other: string, field: string) => maxItemsOf(doc, other, field);
      const calls = (await CASES[key]?.({ inputs, gateway, example, maxItems, prepare })) ?? [example(key)];
      for (const call of calls) {
        const row = `${key} ${call.input}`;
        const entry = measured.get(row) ?? { operation: key, call, runs: [] };
        const run = await measure(gateway, call);
        if (round >= 0) entry.runs.push(run);
        measured.set(row, entry);
      }
    }
  }
  return [...measured.values()].map(({ operation, call, runs }) => {
    const units = new Set(runs.map((r) => r.units));
    if (units.size !== 1) throw new Error(`${operation}: charged ${[...units].join(", ")} units in different runs`);
    return {
      operation,
      input: call.input,
      status: runs[0]?.status ?? 0,
      units: runs[0]?.units ?? 0,
      cpuMs: median(runs.map((r) => r.cpuMs)),
      siiMs: median(runs.map((r) => r.siiMs)),
    };
  });
}

const perUnit = (row: CostRow) => (row.units > 0 ? row.cpuMs / row.units : Number.POSITIVE_INFINITY);
/** Over budget: above MS_PER_UNIT_BUDGET per unit, or a call charged nothing that cost more than one unit's budget. */
const overBudget = (row: CostRow) => (row.units > 0 ? perUnit(row) > MS_PER_UNIT_BUDGET : row.cpuMs > MS_PER_UNIT_BUDGET);

/** The table, one line a row: operation, input, status, units, CPU ms, the simulated SII's ms, CPU ms per unit. */
export function costTable(rows: CostRow[]): string[] {
  const cells = rows.map((r) => [
    r.operation,
    r.input,
    String(r.status),
    String(r.units),
    r.cpuMs.toFixed(1),
    r.siiMs.toFixed(1),
    r.units > 0 ? perUnit(r).toFixed(1) : r.status >= 400 ? "∞ (refused, 0 units)" : "∞ (0 units)",
    overBudget(r) ? "over" : "",
  ]);
  const head = ["operation", "input", "status", "units", "CPU ms", "SII ms", "CPU ms/unit", ""];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? "").length)));
  const numeric = new Set([2, 3, 4, 5, 6]);
  const line = (c: string[]) =>
    c
      .map((cell, i) => (numeric.has(i) ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(head), ...cells.map(line)];
}

export interface CostSummary {
  rows: CostRow[];
  /** Median CPU ms per unit over the charged rows. */
  median: number;
  worst: CostRow;
  /** The worst charged row's CPU ms per unit over the median. */
  ratio: number;
  over: CostRow[];
}

export function summarize(rows: CostRow[]): CostSummary {
  const charged = rows.filter((r) => r.units > 0).toSorted((a, b) => perUnit(a) - perUnit(b));
  const worst = charged.at(-1);
  if (!worst) throw new Error("no operation was charged a unit");
  const mid = median(charged.map(perUnit));
  return { rows, median: mid, worst, ratio: perUnit(worst) / mid, over: rows.filter(overBudget) };
}

export interface CostFigure {
  name: string;
  unit: string;
  value: number;
  budget: number | null;
  gated: boolean;
}

/** The summary as the bench's figures (gated only with COST_GATE on). */
export function costFigures({ rows, median: mid, worst, ratio, over }: CostSummary): CostFigure[] {
  const charged = rows.filter((r) => r.units > 0).length;
  return [
    {
      name: `CPU per quota unit: median of the ${charged} charged calls (bench/README.md "CPU per quota unit")`,
      unit: "ms",
      value: mid,
      budget: null,
      gated: false,
    },
    {
      name: `CPU per quota unit: the worst, ${worst.operation} (${worst.input})`,
      unit: "ms",
      value: perUnit(worst),
      budget: MS_PER_UNIT_BUDGET,
      gated: COST_GATE,
    },
    {
      name: "CPU per quota unit: the worst over the median",
      unit: "ratio",
      value: ratio,
      budget: WORST_TO_MEDIAN_BUDGET,
      gated: COST_GATE,
    },
    {
      name: `CPU per quota unit: calls over ${MS_PER_UNIT_BUDGET} ms a unit (or charged nothing for more)`,
      unit: "calls",
      value: over.length,
      budget: 0,
      gated: COST_GATE,
    },
  ];
}
