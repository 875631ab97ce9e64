// The SII's largest envelope generated inside workerd: Workers bill CPU per request and stop an
// invocation past its CPU limit (30 s by default on the paid plan, up to 5 min when configured;
// the free plan's 10 ms is far below any batch), and an isolate has 128 MB of memory. Node's
// figures (bench/stall.ts) say how long the event loop is held; these say whether one 2 000-document
// `generar` fits a Worker. CPU is the workerd processes' (see workerd.ts: an upper bound of what is
// billed, wrangler dev's own share included); memory is the growth of their peak resident size
// (VmHWM), also an upper bound of the isolate's heap. Reported, not gated.
import { MAX_BATCH_DOCUMENTS } from "../src/routes/document-batch.ts";
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

/** One `generar` of MAX_BATCH_DOCUMENTS type-33 documents through two CAF ranges, as bench/stall.ts sends it. */
async function largestGenerarBody(): Promise<string> {
  const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
  const cafOf = (desde: number, hasta: number) =>
    buildCaf({ rut: COMPANY, razonSocial: "COMERCIAL SANDBOX SPA", tipo: 33, desde, hasta, fecha: "2026-11-01" });
  return JSON.stringify({
    auth: { cert: { "cert-data": juana.certPem, "pkey-data": juana.keyPem } },
    dte: Array.from({ length: MAX_BATCH_DOCUMENTS }, (_, i) => exampleInvoiceOf(1 + i, 1)),
    caf: [await cafOf(1, 1_000), await cafOf(1_001, MAX_BATCH_DOCUMENTS)],
    resolucion: { fecha: "2014-08-22", numero: 80 },
  });
}

export async function envelopeFigures(
  base: string,
  headers: Record<string, string>,
  pids: () => number[],
  cpuMs: (pids: number[]) => number,
  read: (path: string) => string,
): Promise<{ name: string; unit: string; value: number }[]> {
  const body = await largestGenerarBody();
  const send = async () => {
    const res = await fetch(`${base}/api/v1/platform/dte/documentos/generar`, { method: "POST", headers, body });
    const text = await res.text();
    if (!res.ok) throw new Error(`workerd generar: ${res.status} ${text.slice(0, 500)}`);
    return text.length;
  };
  // Memory on the first request (peak during it over what was resident before); CPU and wall time
  // on the second, when the engine's modules are loaded and the code is compiled.
  const first = pids();
  const resident = rssMiB(first, "VmRSS", read);
  await send();
  const growth = rssMiB(first, "VmHWM", read) - resident;
  const before = pids();
  const [cpu0, t0] = [cpuMs(before), performance.now()];
  const bytes = await send();
  const wall = performance.now() - t0;
  const after = pids();
  // wrangler dev restarts workerd when a source changes: a run that ended on other processes says nothing.
  if (after.join() !== before.join() || before.join() !== first.join()) return [];
  const label = `workerd: generar, ${MAX_BATCH_DOCUMENTS} documents × 1 line (${(wall / 1000).toFixed(1)} s wall, answer ${(bytes / 1024 / 1024).toFixed(0)} MB)`;
  return [
    { name: `${label}, CPU of the request`, unit: "ms", value: cpuMs(after) - cpu0 },
    { name: `${label}, growth of workerd's peak resident memory`, unit: "MiB", value: growth },
  ];
}
