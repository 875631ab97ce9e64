// The folio ledger's promise under retries, races, refusals and kill -9, on any runtime's gateway run as
// child processes (`npm start` on SQLite, the Lambda deps on DynamoDB, wrangler dev with Durable Objects
// on disk): a CAF, then a seeded random schedule of generar calls spread over the processes, several in
// flight at once, keys reused with the same or another request, some requests refused by the engine at a
// random document, and SIGKILL to every process at a random moment. Started again on the same state, each
// request sent is retried until it is answered or refused. The invariant, in words:
//   no folio appears in two different signed documents across every answer (a key's answers are one
//   answer, byte for byte), and the folios the ledger holds used are exactly those of the 200 answers
//   (the rest are free, and a last call gets each of them once) — nothing lost, nothing doubled.
import { type ChildProcess, spawn } from "node:child_process";
import { expect } from "vitest";
import { EXAMPLE_CAF } from "../../src/routes/example-documents.ts";
import { type Call, foliosIn, LEDGER_CALLS_IN_FLIGHT, ledgerSchedule, requestBody } from "./ledger-schedule.ts";

export const KILL_TEST_TOKEN = "sii_dev_folios_kill_test";
/** The lease the gateways run with here, so a retry after the kill may take a killed attempt's hold over. */
export const KILL_TEST_LEASE_MS = 2_000;
const LEDGER = "/api/v1/platform/dte/folios/76192083-9/34";
const GENERAR = "/api/v1/platform/dte/documentos/generar";
export const freePort = () => 20_000 + Math.floor(Math.random() * 20_000);

/**
 * Spawns a gateway (its own process group) and resolves once its output holds `ready`; `stdout`, when given,
 * gets every piece of its standard output from the first on (what it printed with `ready` too).
 */
export async function spawnGateway(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; ready: string; withinMs: number; stdout?: (text: string) => void },
): Promise<ChildProcess> {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  const { stdout } = options;
  if (stdout) child.stdout?.on("data", (chunk: Buffer) => stdout(chunk.toString("utf8")));
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

/** Resolves once `child` has exited (at once if it already has). */
export const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.on("exit", () => resolve())));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The property on the gateways `start` runs on `ports` (one process each, all on the same state), with the
 * schedule of `seed`. Answers how many answers had come when the kill landed and the folios then used.
 */
export async function killDuringBatch(
  start: (port: number) => Promise<ChildProcess>,
  ports: number[],
  seed = Number(process.env.LEDGER_KILL_SEED ?? Math.floor(Math.random() * 2 ** 31)),
): Promise<{ answeredBeforeKill: number; usedAtKill: number }> {
  const { calls, killAfter } = ledgerSchedule(seed, { unkeyed: false });
  let turn = 0;
  const call = (path: string, init: RequestInit = {}, key?: string) =>
    fetch(`http://127.0.0.1:${ports[turn++ % ports.length]}${path}`, {
      ...init,
      headers: { "x-api-token": KILL_TEST_TOKEN, "content-type": "application/json", ...(key ? { "idempotency-key": key } : {}) },
    });
  const generar = (body: string, key?: string) => call(GENERAR, { method: "POST", body }, key);
  const ledger = async () =>
    (
      (await (await call(LEDGER)).json()) as {
        data: { disponibles: number; rangos: { usados: number; sin_respuesta: number; anulados: number }[] };
      }
    ).data;
  /** Every 200 answer's text, per key. */
  const answers = new Map<string, Set<string>>();
  const record = async (key: string | undefined, res: Response) => {
    const text = await res.text();
    if (res.status !== 200) return res.status;
    const seen = answers.get(key ?? text) ?? new Set<string>();
    answers.set(key ?? text, seen.add(text));
    return 200;
  };

  let servers = await Promise.all(ports.map(start));
  try {
    expect((await call(LEDGER, { method: "POST", body: JSON.stringify({ caf: EXAMPLE_CAF }) })).status).toBe(200);
    let next = 0;
    let answered = 0;
    const lanes = Array.from({ length: LEDGER_CALLS_IN_FLIGHT }, async () => {
      while (next < calls.length) {
        const { key, body } = calls[next++] as Call;
        try {
          if ((await record(key, await generar(body, key))) === 200 && ++answered === killAfter) servers.forEach(killGroup);
        } catch {
          // Cut off by the kill, or sent after it: no answer.
        }
      }
    });
    await Promise.all(lanes);
    await Promise.all(servers.map(exited));
    for (const server of servers) expect(server.signalCode, `seed ${seed}`).toBe("SIGKILL");

    servers = await Promise.all(ports.map(start));
    const usedAtKill = (await ledger()).rangos[0]?.usados ?? 0;
    // Past the lease of the attempts the kill cut off, every request sent again until it is answered or refused.
    await sleep(KILL_TEST_LEASE_MS + 200);
    for (const { key, body, refused } of calls) {
      const status = await record(key, await generar(body, key));
      expect(refused ? [400, 409] : [200, 409], `seed ${seed}: ${key}`).toContain(status);
    }
    const texts = [...answers.entries()];
    for (const [key, seen] of texts) expect(seen.size, `seed ${seed}: ${key} answered one answer, byte for byte`).toBe(1);
    const folios = texts.flatMap(([, seen]) => [...seen].flatMap(foliosIn));
    expect(new Set(folios).size, `seed ${seed}: no folio in two answers`).toBe(folios.length);
    const after = await ledger();
    expect(after.rangos[0]?.usados, `seed ${seed}: the ledger used exactly the folios answered`).toBe(folios.length);
    // The rest are free: one last call takes each of them once, none of them answered before.
    const rest = after.disponibles;
    const last = rest > 0 ? await generar(requestBody(rest, 9999)) : undefined;
    const lastFolios = last ? foliosIn(await last.text()) : [];
    expect(
      [...folios, ...lastFolios].sort((a, b) => a - b),
      `seed ${seed}`,
    ).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    console.info(
      `ledger property (seed ${seed}): killed after ${answered} answers with ${usedAtKill} folios used; ${answers.size} keys answered, ${folios.length} folios`,
    );
    return { answeredBeforeKill: answered, usedAtKill };
  } catch (error) {
    console.error(`ledger property failed: LEDGER_KILL_SEED=${seed} reproduces it`);
    throw error;
  } finally {
    servers.forEach(killGroup);
    await Promise.all(servers.map(exited));
  }
}
