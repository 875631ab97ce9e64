// The SII's largest envelope generated inside workerd: Workers bill CPU per request and stop an
// invocation past its CPU limit (30 s by default on the paid plan, up to 5 min when configured;
// the free plan's 10 ms is far below any batch), and an isolate has 128 MB of memory. Node's
// figures (bench/stall.ts) say how long the event loop is held; these say whether one 2 000-document
// `generar` fits a Worker. CPU is the workerd processes' (see workerd.ts: an upper bound of what is
// billed, wrangler dev's own share included); memory is the growth of their peak resident size
// (VmHWM), also an upper bound of the isolate's heap. Reported, not gated.
import { MAX_BATCH_DOCUMENTS } from "../src/platform/batch-limits.ts";
import { exampleInvoiceOf } from "../src/routes/example-documents.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../src/sandbox/credentials/index.ts";
import { buildCaf } from "../src/sandbox/folios-caf.ts";

const COMPANY = "76192083-9";

/** Resident memory of the processes, now (`VmRSS`) or at its peak (`VmHWM`), in MiB. */
function rssMiB(pids: number[], field: "VmRSS" | "VmHWM", read: (path: string) => string): number {
  let kib = 0;
  for (const pid of pids) kib += Number(new RegExp(`${field}:\\s+(\\d+)`).exec(read(`/proc/${pid}/status`))?.[1] ?? 0);
  return kib / 1024;
}

/** A `generar` body of `count` type-33 documents, one CAF range per 1 000 folios (the sandbox's grant). */
async function generarBody(count: number): Promise<string> {
  const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
  const cafs = [];
  for (let desde = 1; desde <= count; desde += 1_000)
    cafs.push(
      await buildCaf({
        rut: COMPANY,
        razonSocial: "COMERCIAL SANDBOX SPA",
        tipo: 33,
        desde,
        hasta: Math.min(count, desde + 999),
        fecha: "2026-11-01",
      }),
    );
  return JSON.stringify({
    auth: { cert: { "cert-data": juana.certPem, "pkey-data": juana.keyPem } },
    dte: Array.from({ length: count }, (_, i) => exampleInvoiceOf(1 + i, 1)),
    caf: cafs,
    resolucion: { fecha: "2014-08-22", numero: 80 },
  });
}

type Figure = { name: string; unit: string; value: number };

export async function envelopeFigures(
  base: string,
  headers: Record<string, string>,
  pids: () => number[],
  cpuMs: (pids: number[]) => number,
  files: { read: (path: string) => string; write: (path: string, text: string) => void },
): Promise<Figure[]> {
  const send = async (path: string, body: string) => {
    const res = await fetch(`${base}${path}`, { method: "POST", headers, body });
    const text = await res.text();
    if (!res.ok) throw new Error(`workerd ${path}: ${res.status} ${text.slice(0, 500)}`);
    return text;
  };
  /** Warms once (modules, JIT), then measures one request: CPU, wall time, peak resident memory over what was resident before. */
  const measure = async (name: string, path: string, body: string): Promise<{ figures: Figure[]; answer: string }> => {
    await send(path, body);
    const before = pids();
    // Writing 5 to clear_refs resets the peak (VmHWM) to the current resident size (Linux ≥ 4.0).
    for (const pid of before) files.write(`/proc/${pid}/clear_refs`, "5");
    const resident = rssMiB(before, "VmRSS", files.read);
    const [cpu0, t0] = [cpuMs(before), performance.now()];
    const answer = await send(path, body);
    const wall = performance.now() - t0;
    const after = pids();
    // wrangler dev restarts workerd when a source changes: a run that ended on other processes says nothing.
    if (after.join() !== before.join()) return { figures: [], answer };
    const label = `workerd: ${name} (${(wall / 1000).toFixed(1)} s wall, body ${(body.length / 1024 / 1024).toFixed(1)} MB, answer ${(answer.length / 1024 / 1024).toFixed(1)} MB)`;
    return {
      answer,
      figures: [
        { name: `${label}, CPU of the request`, unit: "ms", value: cpuMs(after) - cpu0 },
        { name: `${label}, growth of workerd's peak resident memory`, unit: "MiB", value: rssMiB(after, "VmHWM", files.read) - resident },
      ],
    };
  };
  const GENERAR = "/api/v1/platform/dte/documentos/generar";
  const largest = await measure(`generar, ${MAX_BATCH_DOCUMENTS} documents × 1 line`, GENERAR, await generarBody(MAX_BATCH_DOCUMENTS));
  // The largest upload the Worker's default body limit (10 MiB) takes back: 1 000 of those documents.
  const half = await measure("generar, 1 000 documents × 1 line", GENERAR, await generarBody(1_000));
  const envio = (JSON.parse(half.answer) as { data: { envio_xml: string } }).data.envio_xml;
  const verified = await measure(
    "envios/verificar of that envelope",
    "/api/v1/platform/dte/envios/verificar",
    JSON.stringify({ xml: envio }),
  );
  return [...largest.figures, ...verified.figures];
}
