// The folio ledger survives a kill -9 in the middle of a batch, on any runtime's gateway run as a
// child process (`npm start` on SQLite, the Lambda deps on DynamoDB, wrangler dev with Durable
// Objects on disk): a CAF, a batch of generar calls without Folio, SIGKILL after a few answers.
// Started again on the same state, every folio is one a caller was answered, one recorded as
// allocated (its key gets it back, once), or free; and the next call continues after the highest.
import { type ChildProcess, spawn } from "node:child_process";
import { expect } from "vitest";
import { EXAMPLE_CAF, EXAMPLE_EXEMPT_INVOICE } from "../../src/routes/example-documents.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";

export const KILL_TEST_TOKEN = "sii_dev_folios_kill_test";
const LEDGER = "/api/v1/platform/dte/folios/76192083-9/34";
const BATCH = 30;
/** Calls of the batch in flight at once. */
const WINDOW = 10;
const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
const { Folio: _folio, ...idDoc } = EXAMPLE_EXEMPT_INVOICE.Encabezado.IdDoc;
const body = JSON.stringify({
  auth: { cert: { "cert-data": juana.certPem, "pkey-data": juana.keyPem } },
  dte: { ...EXAMPLE_EXEMPT_INVOICE, Encabezado: { ...EXAMPLE_EXEMPT_INVOICE.Encabezado, IdDoc: idDoc } },
  resolucion: { fecha: "2014-08-22", numero: 80 },
});

export const freePort = () => 20_000 + Math.floor(Math.random() * 20_000);

/** Spawns a gateway (its own process group) and resolves once its output holds `ready`. */
export async function spawnGateway(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; ready: string; withinMs: number },
): Promise<ChildProcess> {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  await new Promise<void>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`not ready within ${options.withinMs} ms: ${out.slice(-2000)}`)), options.withinMs);
    const read = (chunk: Buffer) => {
      out += chunk;
      if (out.includes(options.ready)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    child.on("exit", (code) => reject(new Error(`exited ${code}: ${out.slice(-2000)}`)));
  });
  return child;
}

/** SIGKILL to the gateway's whole process group (a wrapper such as wrangler runs workerd beneath it). */
export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.on("exit", () => resolve())));

/**
 * The kill -9 case on the gateway `start` runs on `port` (the same state each time it starts).
 * Answers how many folios were allocated when the kill came.
 */
export async function killDuringBatch(start: (port: number) => Promise<ChildProcess>, port: number): Promise<number> {
  const base = `http://127.0.0.1:${port}`;
  const call = (path: string, init: RequestInit = {}, key?: string) =>
    fetch(`${base}${path}`, {
      ...init,
      headers: { "x-api-token": KILL_TEST_TOKEN, "content-type": "application/json", ...(key ? { "idempotency-key": key } : {}) },
    });
  const generar = (key: string) => call("/api/v1/platform/dte/documentos/generar", { method: "POST", body }, key);
  const folioOf = async (res: Response) => {
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { documentos: { folio: number }[] } }).data.documentos.map((d) => d.folio);
  };
  const ledger = async () =>
    ((await (await call(LEDGER)).json()) as { data: { disponibles: number; siguiente: number; rangos: { usados: number }[] } }).data;

  let server = await start(port);
  try {
    expect((await call(LEDGER, { method: "POST", body: JSON.stringify({ caf: EXAMPLE_CAF }) })).status).toBe(200);

    // The batch, WINDOW calls in flight at a time (a fast runtime would otherwise have answered all
    // of them before the kill lands): SIGKILL as the third answer arrives. A call cut off, or sent
    // after the kill, rejects.
    const answered = new Map<string, number[]>();
    let next = 0;
    const lanes = Array.from({ length: WINDOW }, async () => {
      while (next < BATCH) {
        const key = `batch-${next++}`;
        try {
          const folios = await folioOf(await generar(key));
          answered.set(key, folios);
          if (answered.size === 3) killGroup(server);
        } catch {
          // Cut off by the kill: no answer.
        }
      }
    });
    await Promise.all(lanes);
    await exited(server);
    expect(server.signalCode).toBe("SIGKILL");
    expect(answered.size).toBeGreaterThanOrEqual(3);
    expect(answered.size, "the kill came in the middle of the batch").toBeLessThan(BATCH);

    server = await start(port);
    const after = await ledger();
    const allocated = after.rangos[0]?.usados ?? 0;
    // Allocations are made one at a time from the lowest free folio: 1 to `allocated` are taken, the rest free.
    expect(allocated).toBeGreaterThanOrEqual(answered.size);
    expect([after.siguiente, after.disponibles]).toEqual([allocated + 1, 100 - allocated]);

    // Every key again, one at a time: an answered one gets exactly what it was answered.
    const retried = new Map<string, number[]>();
    for (let i = 0; i < BATCH; i++) retried.set(`batch-${i}`, await folioOf(await generar(`batch-${i}`)));
    for (const [key, folios] of answered) expect(retried.get(key), key).toEqual(folios);
    const all = [...retried.values()].flat().sort((a, b) => a - b);
    // Each folio once, none skipped: 1 to BATCH.
    expect(all).toEqual(Array.from({ length: BATCH }, (_, i) => i + 1));
    // The folios allocated before the kill came back to their keys, not taken again: the ledger used BATCH in all.
    expect((await ledger()).rangos[0]?.usados).toBe(BATCH);

    expect(await folioOf(await generar("after-the-batch"))).toEqual([BATCH + 1]);
    console.info(`kill -9 after ${answered.size} of ${BATCH} answers: ${allocated} folios were allocated`);
    return allocated;
  } finally {
    killGroup(server);
    await exited(server);
  }
}
