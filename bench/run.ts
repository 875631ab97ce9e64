// `npm run bench` (`-- --quick` for a short run; `-- --stall` for the event-loop stalls alone): the
// gateway against a bare relay doing the same SII work, measured side by side in this run on this
// machine; plus CPU per request, the event-loop stall of hostile and largest requests, the Worker
// bundle and its start-up. Prints a table and writes bench/results.json. Only ratios are gated.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { SANDBOX_TAXPAYER_CERTS } from "../src/sandbox/credentials/index.ts";
import { engineFigures } from "./dte.ts";
import { type BenchServer, startServer } from "./processes.ts";
import { rcvFigures } from "./rcv.ts";
import { stallFigures } from "./stall.ts";
import { vehicleFigures } from "./vehiculos.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const quick = process.argv.includes("--quick");

// `-- --stall`: only the event-loop stalls of the hostile and largest requests, printed.
if (process.argv.includes("--stall")) {
  for (const f of await stallFigures()) console.log(`${f.value.toFixed(1).padStart(8)} ${f.unit}  ${f.name}`);
  process.exit(0);
}
const DURATION_S = quick ? 3 : 10;
const WARMUP_S = 3;
const CONNECTIONS = 10;
/** A gated figure fails the run when it misses its budget by more than this. */
const GATE_TOLERANCE = 0.25;

interface Figure {
  name: string;
  unit: string;
  value: number;
  reference: number | null;
  ratio: number | null;
  budget: number | null;
  better: "higher" | "lower";
  gated: boolean;
  pass: boolean | null;
}

interface Load {
  rps: number;
  requests: number;
}

/**
 * Latency is measured at this fixed rate, well below what either side can serve on this machine:
 * at full load p99 is mostly queueing behind other requests, which says nothing of what the
 * gateway adds to one request.
 */
const LATENCY_RATE = 100;

/**
 * Requests sent evenly at `rate` per second, each on its own schedule whether or not earlier ones
 * have answered (open loop), each timed from when it was due. autocannon's own rate limit sends
 * each connection's share of a second back to back and then waits for the next second: 100 req/s
 * arrived as one burst at full concurrency, so its p99 was queueing again.
 */
async function paced(
  url: string,
  init: { method?: "GET" | "POST"; headers?: Record<string, string>; body?: string },
  rate: number,
  seconds = DURATION_S,
): Promise<{ p50: number; p99: number }> {
  const agent = new Agent({ keepAlive: true });
  const send = () =>
    new Promise<void>((resolve, reject) => {
      const req = request(url, { method: init.method ?? "GET", headers: init.headers, agent }, (res) => {
        res.resume();
        res.on("end", () => (res.statusCode && res.statusCode < 300 ? resolve() : reject(new Error(`${url}: ${res.statusCode}`))));
      });
      req.on("error", reject);
      req.end(init.body);
    });
  const interval = 1000 / rate;
  const start = performance.now() + interval;
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  for (let i = 0; i < rate * seconds; i++) {
    const due = start + i * interval;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
    pending.push(send().then(() => void latencies.push(performance.now() - due)));
  }
  await Promise.all(pending);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99) };
}

async function load(
  url: string,
  init: { method?: "GET" | "POST"; headers?: Record<string, string>; body?: string } = {},
  seconds = DURATION_S,
): Promise<Load> {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    method: init.method ?? "GET",
    headers: init.headers,
    body: init.body,
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { rps: result.requests.average, requests: result.requests.total };
}

function figure(
  name: string,
  unit: string,
  value: number,
  budget: number | null,
  better: Figure["better"],
  gated: boolean,
  reference: number | null = null,
): Figure {
  const ratio = reference ? value / reference : null;
  const measured = unit === "ratio" ? value : value;
  const pass = budget === null ? null : better === "higher" ? measured >= budget : measured <= budget;
  return { name, unit, value, reference, ratio, budget, better, gated, pass };
}

const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
const operations = [
  {
    name: "indicator read (UF)",
    crypto: false,
    gateway: { path: "/api/v1/sii/indicadores/uf/anual/2025/3/15" },
    bare: { path: "/uf/2025/3/15" },
  },
  {
    name: "credentialed read (BTE summary, cached session)",
    crypto: false,
    // Both sides are CPU-bound on a small machine shared with the load generator: the ratio swings
    // between quick runs (0.59 to 0.73 on 2 cores, 0.86 in a full run). The gate's tolerance puts
    // its failure line at 0.525, under that noise and above the 0.5 an added millisecond gave.
    gateway: {
      path: "/api/v1/sii/bte/emitidas/resumen/2025",
      method: "POST" as const,
      body: JSON.stringify({ auth: { pass: { rut: "76192083-9", clave: "sandbox76" } } }),
    },
    bare: {
      path: "/bte/2025",
      method: "POST" as const,
      body: JSON.stringify({ auth: { pass: { rut: "76192083-9", clave: "sandbox76" } } }),
    },
  },
  {
    name: "write in dry_run (folio request)",
    crypto: true,
    // Neither side calls the SII, so the ratio is the gateway's fixed cost against an empty
    // handler: reported, not held to the relay budget (which assumes an upstream call).
    noUpstream: true,
    gateway: {
      path: "/api/v1/sii/dte/caf/solicitar/76192083-9/33/10?dry_run=true",
      method: "POST" as const,
      body: JSON.stringify({ auth: { cert: { "cert-data": juana.certPem, "pkey-data": juana.keyPem } } }),
    },
    bare: {
      path: "/caf/76192083-9/33/10",
      method: "POST" as const,
      body: JSON.stringify({ auth: { cert: { "cert-data": juana.certPem, "pkey-data": juana.keyPem } } }),
    },
  },
];

const figures: Figure[] = [];
const servers = await Promise.all(["gateway", "bare", "sandbox"].map((mode) => startServer(mode)));
const [gateway, bareRelay, sandbox] = servers as [BenchServer, BenchServer, BenchServer];
try {
  const sandboxLoad = await load(`http://127.0.0.1:${sandbox.port}/www.sii.cl/valores_y_fechas/uf/uf2025.htm`);
  figures.push(figure("sandbox called directly (UF page)", "req/s", sandboxLoad.rps, null, "higher", false));

  for (const op of operations) {
    const headers = { "content-type": "application/json", "x-api-token": gateway.token };
    const gatewayUrl = `http://127.0.0.1:${gateway.port}${op.gateway.path}`;
    const bareUrl = `http://127.0.0.1:${bareRelay.port}${op.bare.path}`;
    // Warm both: caches filled, sessions open, credentials parsed.
    for (const [url, init] of [
      [gatewayUrl, op.gateway],
      [bareUrl, op.bare],
    ] as const) {
      const res = await fetch(url, { method: init.method ?? "GET", headers, body: "body" in init ? init.body : undefined });
      if (!res.ok) throw new Error(`${url}: warm-up answered ${res.status} ${await res.text()}`);
    }
    const bareInit = { method: op.bare.method, headers, body: "body" in op.bare ? op.bare.body : undefined };
    const gatewayInit = { method: op.gateway.method, headers, body: "body" in op.gateway ? op.gateway.body : undefined };
    // Load on each first, so both are measured with their code optimized (JIT). One second was
    // too short for the gateway, whose CPU per request kept falling over the next ten.
    await load(bareUrl, bareInit, WARMUP_S);
    await load(gatewayUrl, gatewayInit, WARMUP_S);
    const bareCpuBefore = await bareRelay.ask<number>("cpu", "cpu");
    const bare = await load(bareUrl, bareInit);
    const bareCpuMs = (await bareRelay.ask<number>("cpu", "cpu")) - bareCpuBefore;
    const cpuBefore = await gateway.ask<number>("cpu", "cpu");
    const gw = await load(gatewayUrl, gatewayInit);
    const cpuMs = (await gateway.ask<number>("cpu", "cpu")) - cpuBefore;
    const bareLatency = await paced(bareUrl, bareInit, LATENCY_RATE);
    const gwLatency = await paced(gatewayUrl, gatewayInit, LATENCY_RATE);
    const relayed = !("noUpstream" in op);
    figures.push(
      figure(`${op.name}: throughput, gateway / bare relay`, "ratio", gw.rps / bare.rps, relayed ? 0.7 : null, "higher", relayed),
    );
    figures.push(figure(`${op.name}: gateway throughput`, "req/s", gw.rps, null, "higher", false, bare.rps));
    figures.push(
      figure(
        `${op.name}: p50 gateway at ${LATENCY_RATE} req/s (bare ${bareLatency.p50.toFixed(1)} ms)`,
        "ms",
        gwLatency.p50,
        null,
        "lower",
        false,
        bareLatency.p50,
      ),
    );
    figures.push(
      figure(`${op.name}: p99 added by the gateway at ${LATENCY_RATE} req/s`, "ms", gwLatency.p99 - bareLatency.p99, 2, "lower", false),
    );
    // Both processes run the sandbox in-process, so the SII's simulated work is in both figures;
    // the difference is what the gateway's own layers cost.
    const perRequest = cpuMs / 1000 / gw.requests;
    const barePerRequest = bareCpuMs / 1000 / bare.requests;
    figures.push(figure(`${op.name}: CPU per request (gateway process, sandbox included)`, "ms", perRequest, 10, "lower", false));
    figures.push(
      figure(
        `${op.name}: CPU per request added by the gateway (over the bare relay)`,
        "ms",
        perRequest - barePerRequest,
        op.crypto ? 10 : 2,
        "lower",
        false,
      ),
    );
  }
} finally {
  for (const server of servers) server.child.send("stop");
}

// The DTE engine in this process, without HTTP (absolute figures: reported, not gated).
for (const f of await engineFigures(quick)) figures.push(figure(f.name, f.unit, f.value, f.budget, f.better, false));
for (const f of await rcvFigures()) figures.push(figure(f.name, f.unit, f.value, f.budget, "lower", f.gated));
for (const f of await vehicleFigures(quick)) figures.push(figure(f.name, f.unit, f.value, null, "lower", false));
// The longest event-loop stall of each hostile or largest-allowed request (reported, not gated).
for (const f of await stallFigures()) figures.push(figure(f.name, f.unit, f.value, null, "lower", false));

// The Worker: minified bundle size and start-up time (workerd, locally).
const out = mkdtempSync(join(tmpdir(), "sii-bench-bundle-"));
const wrangler = join(root, "node_modules", ".bin", "wrangler");
const env = { ...process.env, WRANGLER_SEND_METRICS: "false", PATH: `${join(root, "node_modules", ".bin")}:${process.env.PATH}` };
const bundled = spawnSync(wrangler, ["deploy", "--dry-run", "--minify", "--outdir", out], { cwd: root, env, encoding: "utf8" });
if (bundled.status !== 0) throw new Error(`wrangler deploy --dry-run failed: ${bundled.stderr}`);
const bundleBytes = statSync(join(out, "worker.js")).size;
figures.push(figure("Worker bundle, minified", "MiB", bundleBytes / 1024 / 1024, 1.6, "lower", true)); // 1.6 MiB: linkedom reads the SII's pages (.ci/run has the same budget)
const profile = join(out, "startup.cpuprofile");
const startup = spawnSync(wrangler, ["check", "startup", "--outfile", profile], { cwd: root, env, encoding: "utf8" });
if (startup.status === 0) {
  const { startTime, endTime } = JSON.parse(readFileSync(profile, "utf8")) as { startTime: number; endTime: number };
  figures.push(figure("Worker start-up (local workerd)", "ms", (endTime - startTime) / 1000, 1000, "lower", false));
}

const failedGate = figures.filter((f) => {
  if (!f.gated || f.budget === null) return false;
  return f.better === "higher" ? f.value < f.budget * (1 - GATE_TOLERANCE) : f.value > f.budget * (1 + GATE_TOLERANCE);
});

const rows = figures.map((f) => [
  f.name,
  `${f.value.toFixed(f.unit === "req/s" ? 0 : 3)} ${f.unit}`,
  f.reference === null ? "" : `${f.reference.toFixed(f.unit === "req/s" ? 0 : 3)}`,
  f.budget === null ? "" : `${f.better === "higher" ? "≥" : "≤"} ${f.budget}`,
  f.pass === null ? "" : f.pass ? "ok" : "over",
  f.gated ? "gated" : "",
]);
const widths = [0, 1, 2, 3, 4, 5].map((i) =>
  Math.max(...rows.map((r) => (r[i] ?? "").length), ["figure", "value", "reference", "budget", "", ""][i]?.length ?? 0),
);
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ");
console.log(`\n${line(["figure", "value", "reference", "budget", "", ""])}`);
for (const row of rows) console.log(line(row));

const cpu = cpus()[0]?.model ?? "unknown";
const results = {
  machine: { cpu, cores: cpus().length, node: process.version },
  mode: quick ? "quick" : "full",
  duration_s: DURATION_S,
  connections: CONNECTIONS,
  figures,
};
writeFileSync(join(root, "bench", "results.json"), `${JSON.stringify(results, null, 2)}\n`);
console.log(`\n${cpus().length} cores (${cpu}), Node ${process.version}; results in bench/results.json`);
if (failedGate.length) {
  console.log(`gate: ${failedGate.map((f) => f.name).join("; ")} missed the budget by more than ${GATE_TOLERANCE * 100} %`);
  process.exit(1);
}
