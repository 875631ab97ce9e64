// The longest event-loop stall while each reading operation takes an envelope at the SII's maximum
// (2 000 invoices; 500 boletas), measured on the live Node server from a ticker on its thread.
// This 2-core machine is shared: each operation gets up to five tries, and its best is held to
// 50 ms over the longest stall the same process shows idle just before (the machine's own delay,
// measured in the same run). Reading the upload, checking it and writing the answer each yield in
// slices; the one-step reading of before held the loop 200–600 ms here.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_BATCH_BOLETAS, MAX_BATCH_DOCUMENTS } from "../../src/routes/document-batch.ts";
import { EXAMPLE_ISSUER, exampleInvoiceOf } from "../../src/routes/example-documents.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { buildCaf } from "../../src/sandbox/folios-caf.ts";
import { startTwoTenants, type TwoTenants } from "../support/two-tenants.ts";

/** The issue's bound on one stall, over the machine's own (see above). */
const STALL_MS = 50;
const TRIES = 5;

const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
const juanaCert = { "cert-data": juana.certPem, "pkey-data": juana.keyPem };

let base = "";
let started: TwoTenants["started"];
let secretA = "";
const rows: string[] = [];

beforeAll(async () => {
  ({ base, started, secretA } = await startTwoTenants("sii-gw-reading-"));
});
afterAll(() => {
  started.server.close();
  console.info(`longest event-loop stall while reading an envelope (best of up to ${TRIES} tries):\n${rows.join("\n")}`);
});

interface Measured {
  status: number;
  /** The longest gap between ticks of a 1 ms timer, from sending the request to reading the answer's last byte. */
  stall: number;
  ms: number;
  /** The heap's peak growth, MiB. */
  heap: number;
}

/** Runs `work` while a 1 ms ticker notes the longest gap between its ticks and the heap's peak. */
async function ticking<T>(work: () => Promise<T>): Promise<{ value: T; stall: number; ms: number; heap: number }> {
  const heapBefore = process.memoryUsage().heapUsed;
  let heapPeak = heapBefore;
  let last = performance.now();
  let stall = 0;
  let ticks = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
    if (++ticks % 10 === 0) heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
  }, 1);
  const start = performance.now();
  try {
    const value = await work();
    return {
      value,
      stall: Math.max(stall, performance.now() - last),
      ms: performance.now() - start,
      heap: (heapPeak - heapBefore) / 2 ** 20,
    };
  } finally {
    clearInterval(ticker);
  }
}

async function post(path: string, body: string | Uint8Array<ArrayBuffer>, accept = "*/*"): Promise<{ status: number; bytes: Uint8Array }> {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "x-api-token": secretA, "content-type": "application/json", accept },
    body,
  });
  // Bytes only: decoding a large answer as text here, on the server's thread, would be a stall of the test's own.
  return { status: res.status, bytes: new Uint8Array(await res.arrayBuffer()) };
}

/** The machine's own delay: the longest stall of this process while it serves nothing, for 300 ms. */
async function idleStall(): Promise<number> {
  return (await ticking(() => new Promise((resolve) => setTimeout(resolve, 300)))).stall;
}

async function measure(path: string, body: Uint8Array<ArrayBuffer>, accept: string): Promise<Measured & { idle: number }> {
  let best: (Measured & { idle: number }) | null = null;
  for (let i = 0; i < TRIES; i++) {
    const idle = await idleStall();
    const { value, stall, ms, heap } = await ticking(() => post(path, body, accept));
    if (!best || stall - idle < best.stall - best.idle) best = { status: value.status, stall, ms, heap, idle };
    if (best.stall <= STALL_MS + best.idle) break;
  }
  return best as Measured & { idle: number };
}

const generar = async (dte: unknown[], caf: string[]): Promise<string> => {
  const { status, bytes } = await post(
    "/api/v1/platform/dte/documentos/generar",
    JSON.stringify({ auth: { cert: juanaCert }, dte, caf, resolucion: { fecha: "2014-08-22", numero: 80 } }),
  );
  expect(status).toBe(200);
  return JSON.parse(new TextDecoder().decode(bytes)).data.envio_xml;
};

const cafOf = (tipo: number, desde: number, hasta: number) =>
  buildCaf({ rut: "76192083-9", razonSocial: "COMERCIAL SANDBOX SPA", tipo, desde, hasta, fecha: "2026-11-01" });

const boleta = (folio: number) => ({
  Encabezado: { IdDoc: { TipoDTE: 39, Folio: folio }, Emisor: EXAMPLE_ISSUER, Receptor: { RUTRecep: "66666666-6" } },
  Detalle: [{ NmbItem: "Café", QtyItem: 2, PrcItem: 1_990 }],
});

const OPERATIONS = [
  ["envios/verificar", "/api/v1/platform/dte/envios/verificar?ambiente=1", "application/json"],
  ["documentos/pdf", "/api/v1/platform/dte/documentos/pdf", "application/pdf"],
  ["documentos/pdf (JSON)", "/api/v1/platform/dte/documentos/pdf", "application/json"],
  ["documentos/escpos", "/api/v1/platform/dte/documentos/escpos", "application/octet-stream"],
  ["documentos/escpos (JSON)", "/api/v1/platform/dte/documentos/escpos", "application/json"],
  ["formatos/json", "/api/v1/platform/dte/formatos/json", "application/json"],
] as const;

describe.each([
  [
    `${MAX_BATCH_DOCUMENTS} invoices (type 33)`,
    async () =>
      generar(
        Array.from({ length: MAX_BATCH_DOCUMENTS }, (_, i) => exampleInvoiceOf(1 + i, 1)),
        [await cafOf(33, 1, MAX_BATCH_DOCUMENTS / 2), await cafOf(33, MAX_BATCH_DOCUMENTS / 2 + 1, MAX_BATCH_DOCUMENTS)],
      ),
  ],
  [
    `${MAX_BATCH_BOLETAS} boletas (type 39)`,
    async () =>
      generar(
        Array.from({ length: MAX_BATCH_BOLETAS }, (_, i) => boleta(1 + i)),
        [await cafOf(39, 1, MAX_BATCH_BOLETAS)],
      ),
  ],
])("reading an envelope of %s", (envelope, make) => {
  // Sent as bytes: encoding 12 MB of text at sending, on the server's thread, would be a stall of the test's own.
  let body: Uint8Array<ArrayBuffer> = new Uint8Array();
  beforeAll(async () => {
    body = Uint8Array.from(new TextEncoder().encode(JSON.stringify({ xml: await make() })));
  }, 120_000);

  it.each(OPERATIONS)(
    `%s holds the loop at most ${STALL_MS} ms at a time`,
    async (name, path, accept) => {
      const { status, stall, idle, ms, heap } = await measure(path, body, accept);
      rows.push(
        `${stall.toFixed(0).padStart(5)} ms stall (idle ${idle.toFixed(0).padStart(3)} ms) ${ms.toFixed(0).padStart(6)} ms in all, heap +${heap.toFixed(0)} MiB  ${name}, ${envelope}`,
      );
      expect(status).toBe(200);
      expect(stall, `the longest stall, ${Math.round(stall)} ms, against the process's idle ${Math.round(idle)} ms`).toBeLessThanOrEqual(
        STALL_MS + idle,
      );
    },
    120_000,
  );
});
