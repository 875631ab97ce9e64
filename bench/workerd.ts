// CPU per request inside workerd, for the three reference operations (Workers bill CPU time, not
// wall time). The Worker cannot time itself: performance.now() there is Date.now(), which does not
// advance while code runs (workerd src/workerd/api/performance.c++, Performance::now), and local
// workerd reports 0 ms CPU in its tail events (src/workerd/server/server.c++,
// RequestObserverWithTracer: setOutcome(outcome, 0 ms cpu, 0 ms wall)) and enforces no CPU limit.
// So the Worker runs under `wrangler dev` (local workerd, the sandbox as its SII) and the workerd
// process's own CPU time (/proc/<pid>/stat, Linux) is read around a run of requests: per request,
// the isolate's JavaScript plus what workerd does for it locally (HTTP, the KV and Durable Object
// storage that run on Cloudflare's side in production), so an upper bound of what is billed.
// Most of that is wrangler dev's, not the gateway's: its DevTools session serializes every
// console.log (a CPU profile of the isolate put the access log's one line at about half of a UF
// read's isolate time), and its proxy worker handles each request; so each operation is also
// shown over the floor of a GET /healthz (which writes its access-log line too, so the floor takes
// that line out), and the figures are reported, never gated. In sandbox mode the SII simulator runs
// in the same isolate: a reference Worker (workerd-reference-worker.ts, its own wrangler dev)
// measures the simulator's part of the credentialed read, which is then taken out of the gateway's
// figure beside it, and a bare relay doing the same SII work.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { workerdWebhookLatency } from "./webhooks.ts";
import { envelopeFigures } from "./workerd-envelope.ts";

export interface WorkerdFigure {
  name: string;
  unit: string;
  value: number;
}

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const TICKS = 100;

/** The pids of `pid`'s descendants whose command is `name`. */
function descendants(pid: number, name: string): number[] {
  const parents = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      names.set(Number(entry), stat.slice(stat.indexOf("(") + 1, close));
      parents.set(Number(entry), Number(stat.slice(close + 2).split(" ")[1]));
    } catch {
      // the process ended while the list was read
    }
  }
  const below = (p: number): boolean => p === pid || (parents.has(p) && p !== 1 && below(parents.get(p) as number));
  return [...names].filter(([p, n]) => n === name && below(p)).map(([p]) => p);
}

/** utime + stime of the processes, in milliseconds. */
function cpuMs(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks * 1000) / TICKS;
}

async function started(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`wrangler dev did not start: ${output.slice(-2000)}`)), 90_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /Ready on https?:\/\/[^:\s]+:(\d+)/.exec(output);
      if (ready) {
        clearTimeout(timer);
        resolve(Number(ready[1]));
      }
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    child.once("exit", (code) => reject(new Error(`wrangler dev exited (${code}): ${output.slice(-2000)}`)));
  });
}

/** `wrangler dev` on loopback with these extra arguments; its port once ready. */
async function wranglerDev(args: string[]): Promise<{ child: ChildProcess; base: string; workerd: () => number[] }> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(
    join(root, "node_modules", ".bin", "wrangler"),
    ["dev", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", mkdtempSync(join(tmpdir(), "sii-bench-workerd-")), ...args],
    { cwd: root, env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1" }, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  const workerd = () => descendants(child.pid as number, "workerd");
  try {
    const ready = await started(child);
    if (workerd().length === 0) throw new Error("no workerd process under wrangler dev");
    return { child, base: `http://127.0.0.1:${ready}`, workerd };
  } catch (err) {
    stop(child);
    throw err;
  }
}

function stop(child: ChildProcess): void {
  try {
    process.kill(-(child.pid as number), "SIGTERM");
  } catch {
    child.kill("SIGTERM");
  }
}

interface Operation {
  path: string;
  body?: string;
}

/** The workerd processes' CPU per request over `requests` requests, four at a time, after a warm-up. */
async function cpuPerRequest(base: string, headers: Record<string, string>, op: Operation, requests: number, workerd: () => number[]) {
  // Four at a time, so workerd is kept busy without queueing much.
  const send = async () => {
    const res = await fetch(`${base}${op.path}`, { method: op.body ? "POST" : "GET", headers, body: op.body });
    if (!res.ok) throw new Error(`workerd ${op.path}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  const run = async (count: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next++ < count) await send();
      }),
    );
  };
  // wrangler dev restarts workerd when a source file changes: a run that saw another set of
  // workerd processes at its end is measured again.
  for (let attempt = 0; attempt < 3; attempt++) {
    await run(Math.min(100, requests)); // warm: sessions, caches, JIT
    const pids = workerd();
    const before = cpuMs(pids);
    await run(requests);
    if (workerd().join() === pids.join()) return (cpuMs(pids) - before) / requests;
  }
  return Number.NaN;
}

/** The reference Worker's config, in a temporary directory: the gateway's compatibility and aliases. */
function referenceConfig(): string {
  const own = readFileSync(join(root, "wrangler.toml"), "utf8");
  const date = /^compatibility_date = "([^"]+)"/m.exec(own)?.[1] ?? "2026-10-01";
  const aliases = [...own.matchAll(/^("[^"]+") = "\.\/([^"]+)"$/gm)].map(
    ([, name, path]) => `${name} = ${JSON.stringify(join(root, path ?? ""))}`,
  );
  const dir = mkdtempSync(join(tmpdir(), "sii-bench-reference-"));
  const config = join(dir, "wrangler.toml");
  writeFileSync(
    config,
    [
      'name = "sii-bench-reference"',
      `main = ${JSON.stringify(join(root, "bench", "workerd-reference-worker.ts"))}`,
      `compatibility_date = "${date}"`,
      'compatibility_flags = ["nodejs_compat"]',
      "[[durable_objects.bindings]]",
      'name = "QUOTA"',
      'class_name = "QuotaCounter"',
      "[[migrations]]",
      'tag = "v1"',
      'new_sqlite_classes = ["QuotaCounter"]',
      "[alias]",
      ...aliases,
      "",
    ].join("\n"),
  );
  return config;
}

/**
 * The reference Worker's figures: its floor, the simulator's part of the credentialed read and the
 * bare relay, each over that floor; and the gateway's own CPU, its figure over its floor less the
 * simulator's part. In sandbox mode the simulator runs in the gateway's isolate, so its building
 * of the pages is counted although in production the SII is remote and that work is not billed to
 * the gateway (the answer is read, parsed and checked by the gateway in both cases: that stays in).
 */
async function referenceFigures(
  reference: { base: string; workerd: () => number[] },
  body: string,
  requests: number,
  credentialed: number,
): Promise<WorkerdFigure[]> {
  const headers = { "content-type": "application/json" };
  const at = (path: string) => cpuPerRequest(reference.base, headers, { path, body }, requests, reference.workerd);
  // POSTed with the same body as the routes below, so that wrangler dev's forwarding of it is in
  // the floor and not in the simulator's part taken out of the gateway's figure.
  const floor = await at("/floor");
  const simulator = (await at("/sandbox/2025")) - floor;
  const relay = (await at("/relay/2025")) - floor;
  const quota = (await at("/quota")) - floor;
  return [
    {
      name: `workerd: reference Worker's floor (the request body read, an empty answer), CPU per request (${requests} requests)`,
      unit: "ms",
      value: floor,
    },
    {
      name: "workerd: the simulator's part of the BTE summary (the sandbox serving the gateway's two requests, in the reference Worker, over its floor)",
      unit: "ms",
      value: simulator,
    },
    {
      name: "workerd: bare relay of the BTE summary (the same client calls in a cached session, simulator included; no auth, quota or log; over its floor)",
      unit: "ms",
      value: relay,
    },
    {
      name: "workerd: one quota charge (the gateway's Durable Object and store, in the reference Worker, over its floor)",
      unit: "ms",
      value: quota,
    },
    {
      name: "workerd: credentialed read (BTE summary, cached session), the gateway's own CPU (over the floor, less the simulator's part)",
      unit: "ms",
      value: credentialed - simulator,
    },
  ];
}

export async function workerdFigures(requests: number, certPem: string, keyPem: string, envelope = true): Promise<WorkerdFigure[]> {
  if (!existsSync("/proc/self/stat")) return [];
  const token = `sii_bench_${randomBytes(24).toString("base64url")}`;
  const gateway = await wranglerDev(["--var", "SII_UPSTREAM:sandbox", "--var", `DEV_API_TOKEN:${token}`]);
  const figures: WorkerdFigure[] = [];
  try {
    const { base, workerd } = gateway;
    const headers = { "content-type": "application/json", "x-api-token": token };
    const operations = [
      // No token, no quota, no SII: what workerd and the local dev proxy cost per request alone.
      { name: "health check (no token: the floor)", path: "/healthz" },
      { name: "indicator read (UF)", path: "/api/v1/sii/indicadores/uf/anual/2025/3/15" },
      {
        name: "credentialed read (BTE summary, cached session)",
        path: "/api/v1/sii/bte/emitidas/resumen/2025",
        body: JSON.stringify({ auth: { pass: { rut: "76192083-9", clave: "sandbox76" } } }),
      },
      {
        name: "write in dry_run (folio request)",
        path: "/api/v1/sii/dte/caf/solicitar/76192083-9/33/10?dry_run=true",
        body: JSON.stringify({ auth: { cert: { "cert-data": certPem, "pkey-data": keyPem } } }),
      },
    ];
    let floor = 0;
    let credentialed = 0;
    for (const op of operations) {
      const value = await cpuPerRequest(base, headers, op, requests, workerd);
      if (op.path === "/healthz") floor = value;
      if (op.path.includes("/bte/")) credentialed = value - floor;
      figures.push(
        op.path === "/healthz"
          ? { name: `workerd: ${op.name}, CPU per request (workerd processes; ${requests} requests)`, unit: "ms", value }
          : {
              name: `workerd: ${op.name}, CPU per request over the floor (workerd processes; ${value.toFixed(1)} ms in all)`,
              unit: "ms",
              value: value - floor,
            },
      );
    }
    figures.push(...(await workerdWebhookLatency(base, headers, 20)));
    // Started once the gateway's operations are measured (two wrangler dev starting at once can
    // pick the same local port), and stopped before the envelope part.
    const reference = await wranglerDev(["--config", referenceConfig()]);
    try {
      figures.push(...(await referenceFigures(reference, operations[2]?.body ?? "", requests, credentialed)));
    } finally {
      stop(reference.child);
    }
    if (envelope) {
      const files = {
        read: (path: string) => readFileSync(path, "utf8"),
        write: (path: string, text: string) => writeFileSync(path, text),
      };
      figures.push(...(await envelopeFigures(base, headers, workerd, cpuMs, files)));
    }
  } finally {
    stop(gateway.child);
  }
  return figures;
}
