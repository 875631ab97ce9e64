import { monitorEventLoopDelay } from "node:perf_hooks";
import type { z } from "@hono/zod-openapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inspectEnvelope } from "../../src/dte/verify/envelope.ts";
import { base64ToBytes } from "../../src/lib/encoding.ts";
import { MAX_BATCH_BOLETAS, MAX_BATCH_DOCUMENTS } from "../../src/routes/document-batch.ts";
import { Generated } from "../../src/routes/documentos/generar.ts";
import { EXAMPLE_ISSUER, exampleInvoiceOf } from "../../src/routes/example-documents.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { MAX_AUTOR } from "../../src/sandbox/folios.ts";
import { buildCaf } from "../../src/sandbox/folios-caf.ts";
import { answerOf, errorOf, SuccessEnvelope, valueAt } from "../support/answers.ts";
import { startTwoTenants, type TwoTenants } from "../support/two-tenants.ts";
import { schemaErrors } from "../support/xsd.ts";

const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
const juanaCert = { "cert-data": juana.certPem, "pkey-data": juana.keyPem };
const COMPANY = "76192083-9";
const GENERAR = "/api/v1/platform/dte/documentos/generar";
/**
 * How long the other account's calls may wait, from when they were due: 19 in 20 within 100 ms,
 * and none beyond 250 ms. The remaining stalls are the garbage collector's (pauses of 40–90 ms
 * measured with a `gc` PerformanceObserver while ~70 MB of signed text is alive), not the
 * request's slices, and this 2-core machine is shared, so the strict bound is the 95th percentile.
 */
const OTHER_P95_MS = 100;
const OTHER_MAX_MS = 250;

let base = "";
let started: TwoTenants["started"];
let secretA = "";
let secretB = "";

beforeAll(async () => {
  ({ base, started, secretA, secretB } = await startTwoTenants("sii-gw-big-"));
});
afterAll(() => started.server.close());

interface Answer {
  status: number;
  units: string | null;
  json: z.output<typeof Generated>;
}

/**
 * Sends `body` from account A and, every 25 ms while it runs, a cheap call from account B, answered
 * within the budgets above. The longest event-loop stall
 * and the heap's peak growth during the request are reported.
 */
async function whileOthersCall(path: string, body: string, name: string): Promise<Answer> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  const heapBefore = process.memoryUsage().heapUsed;
  let heapPeak = heapBefore;
  let done = false;
  const start = performance.now();
  const big = fetch(`${base}${path}`, {
    method: "POST",
    headers: { "x-api-token": secretA, "content-type": "application/json" },
    body,
  }).then(async (res) => {
    done = true;
    return { status: res.status, units: res.headers.get("x-quota-units"), text: await res.text() };
  });
  const waits: number[] = [];
  const first = performance.now();
  for (let k = 1; !done; k++) {
    const due = first + 25 * k;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    if (done) break;
    const res = await fetch(`${base}/api/v1/usage`, { headers: { "x-api-token": secretB } });
    await res.arrayBuffer();
    expect(res.status).toBe(200);
    waits.push(performance.now() - due);
    heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
  }
  const answer = await big;
  const ms = performance.now() - start;
  histogram.disable();
  console.info(
    `${name}: ${Math.round(ms)} ms, ${waits.length} calls of another account, median ${Math.round([...waits].sort((a, b) => a - b)[waits.length >> 1] ?? 0)} ms, slowest ${Math.round(Math.max(...waits))} ms; ` +
      `longest event-loop stall ${(histogram.max / 1e6).toFixed(0)} ms; heap peak +${((heapPeak - heapBefore) / 2 ** 20).toFixed(0)} MiB`,
  );
  expect(waits.length).toBeGreaterThan(5);
  const sorted = [...waits].sort((a, b) => a - b);
  const p95 = sorted[Math.floor(0.95 * (sorted.length - 1))] as number;
  expect(p95, `95th percentile of the other account's waits ${Math.round(p95)} ms`).toBeLessThan(OTHER_P95_MS);
  for (const wait of waits) expect(wait, `the other account waited ${Math.round(wait)} ms`).toBeLessThan(OTHER_MAX_MS);
  return { status: answer.status, units: answer.units, json: await answerOf(new Response(answer.text), Generated) };
}

const request = (dte: unknown[], caf: string[]) =>
  JSON.stringify({ auth: { cert: juanaCert }, dte, caf, resolucion: { fecha: "2014-08-22", numero: 80 } });

const cafOf = (tipo: number, desde: number, hasta: number) =>
  buildCaf({ rut: COMPANY, razonSocial: "COMERCIAL SANDBOX SPA", tipo, desde, hasta, fecha: "2026-11-01" });

const boleta = (folio: number) => ({
  Encabezado: { IdDoc: { TipoDTE: 39, Folio: folio }, Emisor: EXAMPLE_ISSUER, Receptor: { RUTRecep: "66666666-6" } },
  Detalle: [
    { NmbItem: "Café", QtyItem: 2, PrcItem: 1_990 },
    { NmbItem: "Medialuna", QtyItem: 1, PrcItem: 1_200 },
  ],
});

/** The envelope's bytes are valid for the SII's schema, and its signature and each document's verify. */
async function checkEnvelope(envio: string, schema: string, count: number): Promise<void> {
  const bytes = base64ToBytes(envio);
  expect(await schemaErrors(bytes, schema)).toEqual([]);
  const report = await inspectEnvelope(bytes);
  expect(report.problems).toEqual([]);
  expect(report.firma?.valido).toBe(true);
  expect(report.documentos).toHaveLength(count);
  expect(report.documentos.filter((d) => !d.firma?.valido)).toEqual([]);
}

let envio2000 = "";

describe("an envelope at the SII's maximum in one request", () => {
  it(`${MAX_BATCH_DOCUMENTS} invoices (type 33) through two CAF ranges: one EnvioDTE, valid and signed, charged 2 per 50`, async () => {
    expect(MAX_BATCH_DOCUMENTS).toBe(2 * MAX_AUTOR);
    const cafs = [await cafOf(33, 1, MAX_AUTOR), await cafOf(33, MAX_AUTOR + 1, 2 * MAX_AUTOR)];
    const dte = Array.from({ length: MAX_BATCH_DOCUMENTS }, (_, i) => exampleInvoiceOf(1 + i, 1));
    const answer = await whileOthersCall(GENERAR, request(dte, cafs), `generar ${MAX_BATCH_DOCUMENTS} × 33`);
    expect(answer.status).toBe(200);
    expect(answer.units).toBe(String((2 * MAX_BATCH_DOCUMENTS) / 50));
    expect(answer.json.data.sobre).toBe("EnvioDTE");
    expect(answer.json.data.documentos).toHaveLength(MAX_BATCH_DOCUMENTS);
    await checkEnvelope(answer.json.data.envio_xml, "EnvioDTE_v10.xsd", MAX_BATCH_DOCUMENTS);
    envio2000 = answer.json.data.envio_xml;
  }, 60_000);

  it.each([
    ["documentos/pdf", "/api/v1/platform/dte/documentos/pdf", 2],
    ["documentos/escpos", "/api/v1/platform/dte/documentos/escpos", 1],
    ["envios/verificar", "/api/v1/platform/dte/envios/verificar?ambiente=1", 2],
    ["formatos/json", "/api/v1/platform/dte/formatos/json", 1],
  ])(
    "%s takes that envelope, charged its weight per started block of 50 documents",
    async (_name, path, weight) => {
      expect(envio2000).not.toBe("");
      const res = await fetch(`${base}${path}`, {
        method: "POST",
        headers: { "x-api-token": secretA, "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ xml: envio2000 }),
      });
      expect([res.status, res.headers.get("x-quota-units")]).toEqual([200, String((weight * MAX_BATCH_DOCUMENTS) / 50)]);
      // Four operations alike: each one's own schema is checked in its own tests.
      expect(valueAt((await answerOf(res, SuccessEnvelope)).data, "documentos")).toHaveLength(MAX_BATCH_DOCUMENTS);
    },
    30_000,
  );

  it(`${MAX_BATCH_BOLETAS} boletas (type 39): one EnvioBOLETA, valid and signed, charged 2 per 50`, async () => {
    const caf = await cafOf(39, 1, MAX_BATCH_BOLETAS);
    const dte = Array.from({ length: MAX_BATCH_BOLETAS }, (_, i) => boleta(1 + i));
    const answer = await whileOthersCall(GENERAR, request(dte, [caf]), `generar ${MAX_BATCH_BOLETAS} × 39`);
    expect(answer.status).toBe(200);
    expect(answer.units).toBe(String((2 * MAX_BATCH_BOLETAS) / 50));
    expect(answer.json.data.sobre).toBe("EnvioBOLETA");
    await checkEnvelope(answer.json.data.envio_xml, "EnvioBOLETA_v11.xsd", MAX_BATCH_BOLETAS);
  }, 60_000);
});

describe("one document over the maximum", () => {
  const post = async (body: string) => {
    const res = await fetch(`${base}${GENERAR}`, {
      method: "POST",
      headers: { "x-api-token": secretA, "content-type": "application/json" },
      body,
    });
    return { status: res.status, units: res.headers.get("x-quota-units"), json: await errorOf(res) };
  };

  it("an EnvioDTE's 2 001: 400 naming the limit and the count, nothing charged", async () => {
    const dte = Array.from({ length: MAX_BATCH_DOCUMENTS + 1 }, (_, i) => exampleInvoiceOf(1 + i, 1));
    const { status, units, json } = await post(request(dte, [await cafOf(33, 1, 10)]));
    expect([status, json.error_code, json.errors?.[0]?.path, units]).toEqual([400, "VALIDATION_ERROR", "dte", "0"]);
    expect(json.message).toMatch(/2001 documents; at most 2000/);
  });

  it("an EnvioBOLETA's 501: 400 naming the limit and the count, nothing charged", async () => {
    const dte = Array.from({ length: MAX_BATCH_BOLETAS + 1 }, (_, i) => boleta(1 + i));
    const { status, units, json } = await post(request(dte, [await cafOf(39, 1, MAX_BATCH_BOLETAS + 1)]));
    expect([status, json.error_code, units]).toEqual([400, "VALIDATION_ERROR", "0"]);
    expect(JSON.stringify(json.errors)).toMatch(/has 501 documents; an EnvioBOLETA carries at most 500/);
  });
});

describe("several CAFs of one type", () => {
  const post = async (dte: unknown[], cafs: string[]) => {
    const res = await fetch(`${base}${GENERAR}`, {
      method: "POST",
      headers: { "x-api-token": secretA, "content-type": "application/json" },
      body: request(dte, cafs),
    });
    return errorOf(res);
  };

  it("overlapping ranges are refused, naming both", async () => {
    const json = await post([exampleInvoiceOf(5, 1)], [await cafOf(33, 1, 10), await cafOf(33, 10, 20)]);
    expect(json.errors).toContainEqual({
      path: "caf[1]",
      location: "body",
      message: "covers folios 10–20 of type 33, overlapping caf[0] (1–10): give each range once",
    });
  });

  it("a folio in no range is refused, naming the nearest range", async () => {
    const json = await post([exampleInvoiceOf(15, 1)], [await cafOf(33, 1, 10), await cafOf(33, 21, 30)]);
    expect(json.errors).toContainEqual({
      path: "dte.Encabezado.IdDoc.Folio",
      location: "body",
      message: "15 is outside the CAF's range 21–30",
    });
  });
});
