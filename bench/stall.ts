// The longest event-loop stall each hostile or largest-allowed request causes (the gateway in this
// process, Node entry's storage): while one request holds the loop, no other request of the
// process is served. Reported, not gated. `npm run bench -- --stall` runs this part alone.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import forge from "node-forge";
import { createApp } from "../src/app.ts";
import { createNodeDeps } from "../src/entry/node-server.ts";
import { bytesToBase64 } from "../src/lib/encoding.ts";
import { issueToken } from "../src/platform/tokens.ts";
import { MAX_BATCH_DOCUMENTS, MAX_DOCUMENT_LINES } from "../src/routes/document-batch.ts";
import { exampleInvoiceOf } from "../src/routes/example-documents.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../src/sandbox/credentials/index.ts";
import { buildCaf } from "../src/sandbox/folios-caf.ts";

export interface StallFigure {
  name: string;
  unit: string;
  value: number;
}

const GENERAR = "/api/v1/platform/dte/documentos/generar";
const COMPANY = "76192083-9";
const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
const juanaCert = { "cert-data": juana.certPem, "pkey-data": juana.keyPem };
const b64 = (text: string) => bytesToBase64(new TextEncoder().encode(text));

const factura = exampleInvoiceOf;

const generar = (cert: unknown, dte: unknown, caf: string | string[] = "<AUTORIZACION/>") =>
  JSON.stringify({ auth: { cert }, dte, caf, resolucion: { fecha: "2014-08-22", numero: 80 } });

/** An encrypted key whose iteration count says 2 000 000 (the derivation is refused before it runs). */
function costlyKeyPem(): string {
  const info = forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(forge.pki.privateKeyFromPem(juana.keyPem)));
  const encrypted = forge.pki.encryptPrivateKeyInfo(info, "sandbox", { algorithm: "aes256", count: 2049 });
  const from = forge.asn1.integerToDer(2049).getBytes();
  const walk = (node: forge.asn1.Asn1): void => {
    if (node.type === forge.asn1.Type.INTEGER && node.value === from) node.value = forge.asn1.integerToDer(2_000_000).getBytes();
    else if (Array.isArray(node.value)) node.value.forEach(walk);
  };
  walk(encrypted);
  return forge.pki.encryptedPrivateKeyToPem(encrypted);
}

export async function stallFigures(): Promise<StallFigure[]> {
  const deps = await createNodeDeps({
    env: { SII_UPSTREAM: "sandbox" },
    database: join(mkdtempSync(join(tmpdir(), "sii-bench-stall-")), "state.sqlite"),
    publicDir: "public",
    log: { log: () => {} },
  });
  const app = createApp(() => deps);
  const { secret } = await issueToken(
    deps.tokens,
    { name: "bench", account: "bench", scopes: ["sii:read", "sii:write"], plan: { daily_units: 1e9, monthly_units: 1e10 } },
    new Date(),
  );
  const figures: StallFigure[] = [];
  /** Sends one request and notes the longest stall of the loop while it ran; returns the answer. */
  const measure = async (name: string, path: string, body: string) => {
    const histogram = monitorEventLoopDelay({ resolution: 1 });
    histogram.enable();
    const heapBefore = process.memoryUsage().heapUsed;
    let heapPeak = heapBefore;
    const sampler = setInterval(() => {
      heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
    }, 2);
    const started = performance.now();
    const res = await app.request(path, { method: "POST", headers: { "x-api-token": secret, "content-type": "application/json" }, body });
    // Read a piece at a time as the answer streams: decoding a 25 MB answer in one res.text() here
    // held this same loop 20–40 ms, a stall of the bench's own, not the gateway's.
    const decoder = new TextDecoder();
    let text = "";
    for await (const piece of res.body ?? []) text += decoder.decode(piece, { stream: true });
    text += decoder.decode();
    const total = performance.now() - started;
    // One more turn of the loop, so a request that never yielded is recorded too.
    await new Promise((resolve) => setTimeout(resolve, 5));
    histogram.disable();
    clearInterval(sampler);
    const heap = (Math.max(heapPeak, process.memoryUsage().heapUsed) - heapBefore) / 1024 / 1024;
    figures.push({
      name: `stall: ${name} (${res.status}, ${total.toFixed(0)} ms in all, heap +${heap.toFixed(0)} MiB)`,
      unit: "ms",
      value: histogram.max / 1e6,
    });
    return text;
  };

  const keyPem = costlyKeyPem();
  await measure(
    "key asking for 2 000 000 PBKDF2 iterations",
    GENERAR,
    generar({ ...juanaCert, "pkey-data": keyPem, passphrase: "sandbox" }, factura(1, 1)),
  );
  await measure(
    "cert-data of 40 000 BEGIN lines",
    GENERAR,
    generar({ ...juanaCert, "cert-data": "-----BEGIN A-----".repeat(40_000) }, factura(1, 1)),
  );
  const comments = b64(`<DTE>${"<!--".repeat(60_000)}`);
  await measure("formatos/json, 240 KB of unclosed comments", "/api/v1/platform/dte/formatos/json", JSON.stringify({ xml: comments }));
  await measure(
    "envios/verificar, 240 KB of unclosed comments",
    "/api/v1/platform/dte/envios/verificar",
    JSON.stringify({ xml: comments }),
  );
  const invalid = Array.from({ length: MAX_DOCUMENT_LINES }, () => ({ NmbItem: "x", QtyItem: -1, PrcItem: -1 }));
  await measure(
    `formatos/json, ${MAX_DOCUMENT_LINES} lines with 2 errors each`,
    "/api/v1/platform/dte/formatos/json",
    JSON.stringify({ dte: { ...factura(1, 0), Detalle: invalid } }),
  );

  const cafOf = (desde: number, hasta: number) =>
    buildCaf({ rut: COMPANY, razonSocial: "COMERCIAL SANDBOX SPA", tipo: 33, desde, hasta, fecha: "2026-11-01" });
  const caf = await cafOf(1, 1_000);
  // The SII's largest envelope in one request, through two CAF ranges (the sandbox grants 1 000 folios a request).
  const largest = Array.from({ length: MAX_BATCH_DOCUMENTS }, (_, i) => factura(1 + i, 1));
  await measure(
    `generar, ${MAX_BATCH_DOCUMENTS} documents × 1 line`,
    GENERAR,
    generar(juanaCert, largest, [caf, await cafOf(1_001, MAX_BATCH_DOCUMENTS)]),
  );
  // A batch whose envelope fits the default body limit, read back by the other operations.
  const lines = 60;
  const batch = Array.from({ length: 20 }, (_, i) => factura(1 + i, lines));
  const generated = await measure(`generar, 20 documents × ${lines} lines`, GENERAR, generar(juanaCert, batch, caf));
  const envio = (JSON.parse(generated) as { data?: { envio_xml?: string } }).data?.envio_xml ?? "";
  for (const [name, path] of [
    ["documentos/pdf", "/api/v1/platform/dte/documentos/pdf"],
    ["documentos/escpos", "/api/v1/platform/dte/documentos/escpos"],
    ["envios/verificar", "/api/v1/platform/dte/envios/verificar"],
    ["formatos/json", "/api/v1/platform/dte/formatos/json"],
  ] as const) {
    await measure(`${name} of that envelope`, path, JSON.stringify({ xml: envio }));
  }
  const worst = Math.max(...figures.map((f) => f.value));
  return [{ name: "stall: worst request's event-loop stall (cases below)", unit: "ms", value: worst }, ...figures];
}
