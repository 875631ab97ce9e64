// `npm run live-check -- --rut R --clave C [--cert F --key F | --pfx F --passphrase P] [options]`:
// calls every read-only SII operation of the gateway once with the user's credentials, against
// the real SII (certification environment by default) or the built-in sandbox (`--sandbox`), and
// says per operation whether it works, the SII refused it, or its answer could not be read. For
// an answer it could not read, or read but found implausible (a failed invariant), the SII's answer
// is saved redacted (secrets, third parties' RUT check digits, names, amounts) so it can be
// attached to a bug report, both as a report and as a body of `POST /sandbox/v1/replays`;
// `--replay DIR` runs the check against the sandbox giving those answers back. Nothing is written
// at the SII: no folio request, no submission, no e-mail, no register change.

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { memoryStores } from "../src/adapters/memory/stores.ts";
import { nodeTransport } from "../src/adapters/node/transport.ts";
import { createNodeWebhookSender } from "../src/adapters/node/webhook-sender.ts";
import { createApp } from "../src/app.ts";
import { configFromEnv, systemClock } from "../src/config.ts";
import { randomBase64Url } from "../src/lib/crypto.ts";
import { decodeAs } from "../src/lib/latin1.ts";
import { parseRut } from "../src/lib/rut.ts";
import { issueToken } from "../src/platform/tokens.ts";
import type { Deps } from "../src/ports/deps.ts";
import type { Sandbox } from "../src/sandbox/app.ts";
import { createDefaultSandbox } from "../src/sandbox/index.ts";
import { sandboxTransport } from "../src/sandbox/transport.ts";
import { REDACT_MAX_CHARS, redactSiiAnswer } from "../src/sii/redact.ts";
import { copying, type SiiAnswerCopy } from "./live-check-answers.ts";
import { type Answer, classify, type Result, readReplays, replayFile, SAVED_RESULTS } from "./live-check-report.ts";

const usage = `usage: npm run live-check -- --rut RUT [--clave CLAVE] [--cert cert.pem --key key.pem | --pfx file.pfx] [--passphrase P]
  --ambiente certificacion|produccion   where operations that take \`ambiente\` go (default certificacion)
  --track-id N     a submission of yours, for envios/estado (skipped without it)
  --out DIR        folder for the redacted answers that could not be read or were implausible (default live-check-report)
  --strict         exit 1 when an answer could not be read or was implausible
  --sandbox        against the built-in SII sandbox instead of the real SII (what CI runs)
  --sandbox-fault SERVICE:KIND[:COUNT]   sandbox only: make the simulated SII fail (repeatable)
  --replay DIR     against the sandbox, each operation given the SII answer saved for it in DIR
                   (<operation>.json, as --out writes); without --rut, as the sandbox's test company`;

const { values } = parseArgs({
  options: {
    rut: { type: "string" },
    clave: { type: "string" },
    cert: { type: "string" },
    key: { type: "string" },
    pfx: { type: "string" },
    passphrase: { type: "string" },
    "track-id": { type: "string" },
    ambiente: { type: "string", default: "certificacion" },
    out: { type: "string", default: "live-check-report" },
    strict: { type: "boolean", default: false },
    sandbox: { type: "boolean", default: false },
    "sandbox-fault": { type: "string", multiple: true, default: [] },
    replay: { type: "string" },
    help: { type: "boolean", default: false },
  },
});

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

if (values.help) {
  console.log(usage);
  process.exit(0);
}
const sandboxMode = values.sandbox || values.replay !== undefined;
const transport = sandboxMode ? sandboxTransport() : nodeTransport();
/** `--replay` without credentials: the sandbox's test company, whose clave and certificate work there. */
const testCompany =
  values.replay !== undefined && !values.rut ? transport.sandbox?.credentials().taxpayers.find((t) => t.kind === "company") : undefined;
const rutCheck = parseRut(values.rut ?? testCompany?.rut ?? "");
if (!rutCheck.ok) fail(`--rut: ${values.rut ? rutCheck.reason : "is required"}\n${usage}`);
const rut = rutCheck.rut;
if (!["certificacion", "produccion"].includes(values.ambiente)) fail(`--ambiente must be certificacion or produccion\n${usage}`);
const ambiente = values.ambiente === "produccion" ? "0" : "1";
if (values.pfx && (values.cert || values.key)) fail("give either --pfx or --cert with --key, not both");
if (Boolean(values.cert) !== Boolean(values.key)) fail("--cert and --key go together");
if (values.pfx && values.passphrase === undefined) fail("--pfx needs --passphrase");
if (values["sandbox-fault"].length > 0 && !sandboxMode) fail("--sandbox-fault works only with --sandbox or --replay");
const replays = (() => {
  if (values.replay === undefined) return new Map<string, unknown>();
  try {
    return readReplays(values.replay);
  } catch (err) {
    fail(`--replay ${values.replay}: ${(err as Error).message}`);
  }
})();

const readText = (path: string) => {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    fail(`cannot read ${path}: ${(err as Error).message}`);
  }
};
const cert: Record<string, string> | undefined = values.pfx
  ? { "pfx-data": readFileSync(values.pfx).toString("base64"), passphrase: values.passphrase ?? "" }
  : values.cert && values.key
    ? {
        "cert-data": readText(values.cert),
        "pkey-data": readText(values.key),
        ...(values.passphrase !== undefined ? { passphrase: values.passphrase } : {}),
      }
    : testCompany?.cert;
const clave = values.clave ?? testCompany?.clave;
const pass = clave ? { rut, clave } : undefined;
if (!cert && !pass) fail(`give --clave, a certificate (--cert/--key or --pfx), or both\n${usage}`);

/** Everything the redaction must hide, in whatever form the SII might echo it. */
const secrets = [values.clave, values.passphrase, cert?.["pkey-data"], cert?.["pfx-data"]].filter(
  (s): s is string => typeof s === "string" && s !== "",
);

// ---------------------------------------------------------------------------------------------
// The gateway in this process, with memory stores; every SII answer is kept (the first 64 KiB)
// so the one an operation could not read can be saved.

const answers: SiiAnswerCopy[] = [];
const copies: Promise<void>[] = [];

const config = configFromEnv({
  SII_UPSTREAM: sandboxMode ? "sandbox" : "live",
  SECRET_KEY: randomBase64Url(48),
  SII_TIMEOUT_MS: process.env.SII_TIMEOUT_MS,
});
const deps: Deps = {
  ...memoryStores(),
  sii: copying(transport, answers, copies),
  webhooks: createNodeWebhookSender(),
  clock: systemClock,
  // Records never carry credentials; the table below says what a user needs.
  log: { log: () => undefined },
  config,
};
const app = createApp(() => deps);
const { secret: token } = await issueToken(
  deps.tokens,
  { name: "live-check", account: "live-check", scopes: ["sii:read"], plan: { daily_units: 100_000, monthly_units: 100_000 } },
  deps.clock.now(),
);

async function call(method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await app.request(path, {
    method,
    headers: { "x-api-token": token, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: { raw: text.slice(0, 200) } };
  }
}

for (const spec of values["sandbox-fault"]) {
  const [service, fault, count] = spec.split(":");
  const res = await call("POST", "/sandbox/v1/faults", { service, fault, count: count ? Number(count) : 1 });
  if (res.status !== 200) fail(`--sandbox-fault ${spec}: ${res.body.message ?? res.status}`);
}

// ---------------------------------------------------------------------------------------------
// The operations. Every `sii:read` operation of /openapi.json is either called (PLAN) or named
// here with the reason it is not (NOT_CALLED); one that is neither stops the check, so a new
// read operation cannot be forgotten.

const now = new Date();
const year = now.getFullYear();
const month = now.getMonth() + 1;
const lastMonth = month === 1 ? { y: year - 1, m: 12 } : { y: year, m: month - 1 };
/** The last closed tax period, `YYYYMM`: its registers are complete. */
const periodo = `${lastMonth.y}${String(lastMonth.m).padStart(2, "0")}`;
const q = `?ambiente=${ambiente}`;

const NOT_CALLED: Record<string, string> = {
  post_platform_dte_formatos_json: "computed by the gateway, no SII call",
  post_platform_dte_documentos_escpos: "computed by the gateway, no SII call",
  post_platform_dte_documentos_pdf: "computed by the gateway, no SII call",
  post_platform_dte_envios_verificar: "needs one of the user's signed documents; its SII query is the one intercambios/recepcion_sii makes",
  get_platform_dte_folios: "the gateway's own folio ledger, no SII call",
};

type Need = "cert" | "pass" | "either" | "none";
interface Step {
  need: Need;
  /** Method and concrete path, and the body without `auth`; undefined to skip with `skip`. */
  request: (state: State) => { path: string; body?: Record<string, unknown> } | { skip: string };
}
interface State {
  tipo?: number;
  /** A purchase and a sale of the period (type 33), from the registers' details. */
  compraFolio?: number;
  ventaFolio?: number;
  /** The SII refused the clave once: no more logins with it (repeated failures lock the clave). */
  claveRefused?: boolean;
  compras?: number;
  ventas?: number;
  comprasReady?: boolean;
  ventasReady?: boolean;
}

const asyncSteps = (side: "compras" | "ventas") => {
  const tail = side === "compras" ? "/33/REGISTRO" : "/33";
  const idOf = (s: State) => s[side];
  return {
    [`post_sii_rcv_${side}_async_solicitar`]: {
      need: "either",
      request: () => ({ path: `/api/v1/sii/rcv/${side}/async/solicitar/${rut}/${periodo}${tail}${q}` }),
    },
    [`post_sii_rcv_${side}_async_estado`]: {
      need: "either",
      request: (s: State) =>
        idOf(s) === undefined
          ? { skip: `no solicitud_id (solicitar did not work)` }
          : { path: `/api/v1/sii/rcv/${side}/async/estado/${rut}/${periodo}/${idOf(s)}${tail}${q}` },
    },
    [`post_sii_rcv_${side}_async_detalle`]: {
      need: "either",
      request: (s: State) =>
        !s[`${side}Ready`]
          ? { skip: `the SII's file was not ready (estado never TERMINADO)` }
          : { path: `/api/v1/sii/rcv/${side}/async/detalle/${rut}/${periodo}/${idOf(s)}${tail}${q}` },
    },
  } satisfies Record<string, Step>;
};

// Why these are read-only: each is `sii:read` in the operations table (changesState false) and
// only queries the SII: indicator and appraisal pages, the taxpayer's data, the registers (RCV)
// and their summaries, the certification progress, a submission's or document's state. The RCV
// `async/solicitar` asks the SII to prepare a file of the register: nothing in it changes. Every
// `sii:write` operation (folio requests and annulments, submissions, register changes, BHE
// e-mails, certification steps, answers to the SII) is left out by its scope.
const PLAN: Record<string, Step> = {
  get_sii_indicadores_uf_anual: {
    need: "none",
    request: () => ({ path: `/api/v1/sii/indicadores/uf/anual/${year}/${month}/${now.getDate()}` }),
  },
  get_sii_indicadores_correccion_monetaria_anual: {
    need: "none",
    request: () => ({ path: `/api/v1/sii/indicadores/correccion_monetaria/anual/${year - 1}` }),
  },
  get_sii_indicadores_impuesto_segunda_categoria_anual: {
    need: "none",
    request: () => ({ path: `/api/v1/sii/indicadores/impuesto_segunda_categoria/anual/${year}/${month}` }),
  },
  get_sii_vehiculos_categorias_tipos: { need: "none", request: () => ({ path: "/api/v1/sii/vehiculos/categorias/tipos/1" }) },
  get_sii_vehiculos_categorias_marcas: { need: "none", request: () => ({ path: "/api/v1/sii/vehiculos/categorias/marcas/1" }) },
  get_sii_vehiculos_categorias_caracteristicas: {
    need: "none",
    request: () => ({ path: "/api/v1/sii/vehiculos/categorias/caracteristicas/1" }),
  },
  post_sii_vehiculos_tasacion_buscar: {
    need: "none",
    request: (s) => ({ path: "/api/v1/sii/vehiculos/tasacion/buscar", body: { categoria: 1, tipo: s.tipo ?? 1, por_pagina: 5 } }),
  },
  post_sii_dte_contribuyentes_datos: { need: "cert", request: () => ({ path: `/api/v1/sii/dte/contribuyentes/datos/${rut}${q}` }) },
  post_sii_bte_emitidas_resumen: { need: "pass", request: () => ({ path: `/api/v1/sii/bte/emitidas/resumen/${year}` }) },
  post_sii_rcv_compras_resumen: {
    need: "either",
    request: () => ({ path: `/api/v1/sii/rcv/compras/resumen/${rut}/${periodo}/REGISTRO${q}` }),
  },
  post_sii_rcv_ventas_resumen: { need: "either", request: () => ({ path: `/api/v1/sii/rcv/ventas/resumen/${rut}/${periodo}${q}` }) },
  post_sii_rcv_compras_detalle: {
    need: "either",
    request: () => ({ path: `/api/v1/sii/rcv/compras/detalle/${rut}/${periodo}/33/REGISTRO${q}` }),
  },
  post_sii_rcv_ventas_detalle: { need: "either", request: () => ({ path: `/api/v1/sii/rcv/ventas/detalle/${rut}/${periodo}/33${q}` }) },
  post_sii_rcv_compras_detalle_documento: {
    need: "either",
    request: (s) =>
      s.compraFolio === undefined
        ? { skip: `no purchase of type 33 in ${periodo} to ask about` }
        : { path: `/api/v1/sii/rcv/compras/detalle/documento/${rut}/${periodo}/33/${s.compraFolio}${q}` },
  },
  post_sii_rcv_ventas_get_detalle_resumen: {
    need: "either",
    request: () => ({ path: `/api/v1/sii/rcv/ventas/get_detalle_resumen/${rut}/${periodo}${q}` }),
  },
  post_sii_certificacion_postulacion_avance: {
    need: "cert",
    request: () => ({ path: `/api/v1/sii/certificacion/postulacion/avance/${rut}` }),
  },
  post_sii_certificacion_contribuyentes_datos: {
    need: "cert",
    request: () => ({ path: `/api/v1/sii/certificacion/contribuyentes/datos/${rut}` }),
  },
  post_platform_dte_envios_estado: {
    need: "cert",
    request: () =>
      values["track-id"]
        ? { path: `/api/v1/platform/dte/envios/estado/${rut}/${encodeURIComponent(values["track-id"])}${q}` }
        : { skip: "needs --track-id (a submission of yours)" },
  },
};
// A document the user issued in the period (from the sales register), asked about at the SII.
for (const what of ["cesion", "eventos", "recepcion_sii"]) {
  PLAN[`post_platform_dte_intercambios_${what}`] = {
    need: "cert",
    request: (s) =>
      s.ventaFolio === undefined
        ? { skip: `no sale of type 33 in ${periodo} to ask about` }
        : { path: `/api/v1/platform/dte/intercambios/${what}/${rut}/33/${s.ventaFolio}${q}` },
  };
}
for (const side of ["compras", "ventas"] as const) {
  Object.assign(PLAN, asyncSteps(side));
}

function authFor(need: Need, state: State): { auth: Record<string, unknown> } | { skip: string } | undefined {
  if (need === "none") return undefined;
  const refused = "the SII refused the clave once; not tried again, so the clave is not locked";
  if (need === "pass" && pass && state.claveRefused) return { skip: refused };
  if (need === "either" && pass && state.claveRefused) return cert ? { auth: { cert } } : { skip: refused };
  if (need === "cert") return cert ? { auth: { cert } } : { skip: "needs a certificate (--cert/--key or --pfx)" };
  if (need === "pass") return pass ? { auth: { pass } } : { skip: "needs --clave" };
  return pass ? { auth: { pass } } : cert ? { auth: { cert } } : { skip: "needs --clave or a certificate" };
}

const redact = (text: string) => redactSiiAnswer(text, { secrets, ownRuts: [rut] });

let identifier: Sandbox | undefined;
/** The sandbox's name of the SII service an answer came from (what a replay names), or null. */
function serviceOf(copy: SiiAnswerCopy): Promise<string | null> {
  identifier ??= createDefaultSandbox();
  return identifier.serviceOf(new Request(copy.url, { method: copy.method }));
}

/** The SII answer behind a failure: the last of the operation's, of the service the gateway names if it does. */
async function answerBehind(since: number, named: unknown): Promise<{ copy: SiiAnswerCopy; service: string | null } | undefined> {
  const own = answers.slice(since);
  for (let i = own.length - 1; i >= 0; i--) {
    const copy = own[i] as SiiAnswerCopy;
    const service = await serviceOf(copy);
    if (typeof named !== "string" || service === named) return { copy, service };
  }
  const last = own.at(-1);
  return last ? { copy: last, service: await serviceOf(last) } : undefined;
}

/**
 * Saves what an operation could not read (or read implausibly): `<operation>.txt`, a redacted
 * report to read, and `<operation>.json`, the same answer as a body of `POST /sandbox/v1/replays`
 * for `--replay`. Returns what the table says of them.
 */
async function saveAnswer(operationId: string, method: string, path: string, answer: Answer, since: number): Promise<string> {
  mkdirSync(values.out, { recursive: true });
  const behind = await answerBehind(since, answer.body?.details?.service);
  const copy = behind?.copy;
  const lines = [
    `operation: ${method} ${path}`,
    `gateway answer: ${answer.status} ${answer.body?.error_code ?? ""} ${redact(String(answer.body?.message ?? ""))}`,
    `gateway details: ${redact(JSON.stringify(answer.body?.details ?? {}))}`,
    `checked at: ${new Date().toISOString()} (${sandboxMode ? "sandbox" : "real SII"}, ambiente ${ambiente})`,
    copy
      ? `SII answer: HTTP ${copy.status} from ${redact(copy.url)} (${copy.contentType || "no content type"})` +
        (copy.cut ? `, its first ${REDACT_MAX_CHARS} bytes` : "")
      : "SII answer: none kept",
    "Redacted: secrets, session cookies and tokens, third parties' RUT check digits, names, contact data, amounts.",
    "",
    copy ? redact(decodeAs(copy.bytes, copy.contentType)) : "",
  ];
  const report = join(values.out, `${operationId}.txt`);
  writeFileSync(report, `${lines.join("\n")}\n`);
  const saved = [relative(process.cwd(), report)];
  if (copy && behind.service) {
    const replay = join(values.out, `${operationId}.json`);
    writeFileSync(replay, `${JSON.stringify(replayFile(copy, behind.service, redact), null, 2)}\n`);
    saved.push(relative(process.cwd(), replay));
  }
  return saved.join(", ");
}

/** `--replay`: the saved answer goes to the sandbox just before its operation. */
async function queueReplay(operationId: string): Promise<void> {
  const replay = replays.get(operationId);
  if (replay === undefined) return;
  const res = await call("POST", "/sandbox/v1/replays", replay);
  if (res.status !== 200) {
    const errors = (res.body?.errors ?? []) as { path: string; message: string }[];
    fail(`--replay ${operationId}.json: ${res.body?.message ?? res.status} ${errors.map((e) => `${e.path}: ${e.message}`).join("; ")}`);
  }
}

// ---------------------------------------------------------------------------------------------

const openapi = await call("GET", "/openapi.json");
if (openapi.status !== 200) fail(`the gateway did not give its OpenAPI document (${openapi.status})`);
const reads: { method: string; operationId: string }[] = [];
for (const [path, item] of Object.entries(openapi.body.paths as Record<string, Record<string, Record<string, unknown>>>)) {
  for (const [method, op] of Object.entries(item)) {
    // The operations on the SII's data; the gateway's jobs and their feed (/api/v1/jobs, /api/v1/events)
    // ask the SII only later, through a job, what envios/estado asks here.
    if (op["x-scope"] === "sii:read" && /^\/api\/v1\/(sii|platform)\//.test(path))
      reads.push({ method: method.toUpperCase(), operationId: String(op.operationId ?? `${method} ${path}`) });
  }
}
const unknown = reads.filter((r) => !PLAN[r.operationId] && !NOT_CALLED[r.operationId]).map((r) => r.operationId);
if (unknown.length) fail(`read operations this check does not know how to call: ${unknown.join(", ")}`);
const notCalled = [...replays.keys()].filter((id) => !PLAN[id]);
if (notCalled.length) fail(`--replay: no operation this check calls is named ${notCalled.map((id) => `${id}.json`).join(", ")}`);

const state: State = {};
const rows: { operationId: string; result: Result; detail: string }[] = [];
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const where =
  values.replay !== undefined
    ? `built-in sandbox replaying ${replays.size} saved answer(s)`
    : sandboxMode
      ? "built-in sandbox"
      : "real SII";
console.log(`SII live check for ${rut} — ${where}, ambiente ${ambiente} (${values.ambiente})`);
for (const { method, operationId } of reads) {
  const step = PLAN[operationId];
  if (!step) {
    rows.push({ operationId, result: "skipped", detail: `not called: ${NOT_CALLED[operationId]}` });
    continue;
  }
  const auth = authFor(step.need, state);
  const planned = step.request(state);
  if ("skip" in planned || (auth && "skip" in auth)) {
    rows.push({ operationId, result: "skipped", detail: "skip" in planned ? planned.skip : (auth as { skip: string }).skip });
    continue;
  }
  const body = auth || planned.body ? { ...planned.body, ...auth } : undefined;
  const before = answers.length;
  await queueReplay(operationId);
  let answer = await call(method, planned.path, body);
  // The SII prepares a download in the background: ask for its state a few times.
  const side = /rcv_(compras|ventas)_async_estado/.exec(operationId)?.[1] as "compras" | "ventas" | undefined;
  for (let i = 0; side && answer.status === 200 && answer.body.data?.estado !== "TERMINADO" && i < 5; i++) {
    await pause(sandboxMode ? 700 : 3000);
    answer = await call(method, planned.path, body);
  }
  await Promise.all(copies);
  // A replay the operation did not use is not left for the next one.
  if (replays.has(operationId)) await call("DELETE", "/sandbox/v1/replays");
  if (answer.status === 400 && answer.body?.error_code === "AUTH_ERROR" && body && "pass" in (body.auth as object))
    state.claveRefused = true;
  const { result, detail } = classify(answer, redact);
  const shown = SAVED_RESULTS.includes(result)
    ? `${detail} → ${await saveAnswer(operationId, method, planned.path, answer, before)}`
    : detail;
  if (answer.status === 200) {
    const data = answer.body.data;
    if (operationId === "get_sii_vehiculos_categorias_tipos") {
      const list = Array.isArray(data) ? data : Object.values(data ?? {}).find(Array.isArray);
      const first = (list as { id?: unknown }[] | undefined)?.[0]?.id;
      if (typeof first === "number") state.tipo = first;
    }
    const solicitar = /rcv_(compras|ventas)_async_solicitar/.exec(operationId)?.[1] as "compras" | "ventas" | undefined;
    if (solicitar && typeof data?.solicitud_id === "number") state[solicitar] = data.solicitud_id;
    if (side) state[`${side}Ready`] = data?.estado === "TERMINADO";
    const folio = (data?.documentos as { tipo_documento?: number; folio?: unknown }[] | undefined)?.find(
      (d) => d.tipo_documento === 33,
    )?.folio;
    if (typeof folio === "number" && operationId === "post_sii_rcv_compras_detalle") state.compraFolio = folio;
    if (typeof folio === "number" && operationId === "post_sii_rcv_ventas_detalle") state.ventaFolio = folio;
  }
  rows.push({ operationId, result, detail: shown });
}

// One line per operation, then the summary.
const width = Math.max(...rows.map((r) => r.operationId.length));
const resultWidth = Math.max(...rows.map((r) => r.result.length));
console.log(`${"operation".padEnd(width)}  ${"result".padEnd(resultWidth)}  detail`);
for (const row of rows) console.log(`${row.operationId.padEnd(width)}  ${row.result.padEnd(resultWidth)}  ${row.detail}`);
const count = (result: Result) => rows.filter((r) => r.result === result).length;
const unreadable = count("could not be read");
const broken = count("gateway error");
const implausible = count("read, but implausible");
console.log(
  `summary: ${count("works")} works, ${count("refused by the SII")} refused by the SII, ${unreadable} could not be read, ` +
    `${implausible} read but implausible, ${broken} gateway errors, ${count("skipped")} skipped` +
    (unreadable + implausible
      ? ` — redacted answers in ${values.out}/ (check them before attaching to a bug report; npm run live-check -- --replay ${values.out} replays them)`
      : ""),
);
process.exit(broken > 0 || (values.strict && unreadable + implausible > 0) ? 1 : 0);
