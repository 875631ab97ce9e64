// One server for the benchmark, in its own process so its CPU time can be measured alone:
//   gateway  the gateway (Node entry, SQLite state) against the in-process sandbox
//   bare     the same SII work with no auth, validation, quota or idempotency (the reference)
//   sandbox  the SII simulator itself over HTTP
// Prints `ready <port>`; on the IPC message "cpu" it answers its CPU time so far (microseconds),
// on "heap-start" / "heap-stop" the peak of its live memory in between.

import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAdaptorServer } from "@hono/node-server";
import { Hono } from "hono";
import { memorySessionStore } from "../src/adapters/memory/sessions.ts";
import { parseCertificateCredential } from "../src/certificates/credentials.ts";
import { createNodeServer } from "../src/entry/node-server.ts";
import { issueToken } from "../src/platform/tokens.ts";
import { createDefaultSandbox } from "../src/sandbox/index.ts";
import { sandboxTransport } from "../src/sandbox/transport.ts";
import { annualBte } from "../src/sii/bte.ts";
import { ufYear } from "../src/sii/indicadores.ts";
import { claveLogin } from "../src/sii/login.ts";
import { withWebSession } from "../src/sii/sessions.ts";

const mode = process.argv[2];
const quiet = { log: () => {} };

async function gateway() {
  const { server, deps } = await createNodeServer({
    env: { SII_UPSTREAM: "sandbox" },
    database: join(mkdtempSync(join(tmpdir(), "sii-bench-")), "state.sqlite"),
    publicDir: "public",
    log: quiet,
  });
  const { secret } = await issueToken(
    deps.tokens,
    { name: "bench", account: "bench", scopes: ["sii:read", "sii:write"], plan: { daily_units: 1e9, monthly_units: 1e10 } },
    new Date(),
  );
  return { server, token: secret };
}

/** The bare relay: the same client calls as the gateway's handlers, nothing around them. */
function bare() {
  const transport = sandboxTransport(createDefaultSandbox());
  const ctx = { transport, timeoutMs: 30_000 };
  const sessions = memorySessionStore();
  const app = new Hono();
  // The reference relays every request to the SII (here the sandbox), but keeps a year's UF table
  // once read, as the gateway does: otherwise the figure set a page parse per call against a cache hit.
  const ufYears = new Map<number, Awaited<ReturnType<typeof ufYear>>>();
  app.get("/uf/:anio/:mes/:dia", async (c) => {
    const anio = Number(c.req.param("anio"));
    const year = ufYears.get(anio) ?? (await ufYear(ctx, anio));
    if (year?.[12]?.[31] !== undefined) ufYears.set(anio, year);
    const valor = year?.[Number(c.req.param("mes"))]?.[Number(c.req.param("dia"))];
    return c.json({ fecha: `${anio}-${c.req.param("mes")}-${c.req.param("dia")}`, valor });
  });
  app.post("/bte/:anio", async (c) => {
    const { auth } = await c.req.json<{ auth: { pass: { rut: string; clave: string } } }>();
    const env = { ctx, sessions, secretKey: "bench-secret-key-with-32-characters!", now: () => new Date(), pacingMs: 0, waitMs: 5_000 };
    const owner = { account: "bench", rut: auth.pass.rut, ambiente: "0" as const, kind: "clave" as const, proof: auth.pass.clave };
    const summary = await withWebSession(
      env,
      owner,
      () => claveLogin(ctx, auth.pass),
      (jar) => annualBte(ctx, jar, Number(c.req.param("anio"))),
    );
    return c.json({ mensual: summary.mensual, anual: summary.anual });
  });
  app.post("/caf/:emisor/:dte/:cantidad", async (c) => {
    const { auth } = await c.req.json<{ auth: { cert: { "cert-data": string; "pkey-data": string } } }>();
    await parseCertificateCredential(auth.cert, new Date());
    return c.json({ folio_inicial: 1, folio_final: Number(c.req.param("cantidad")), caf_xml: "" });
  });
  return { server: createAdaptorServer({ fetch: app.fetch }), token: "" };
}

/** The simulator over HTTP: `/<host>/<path>` is the SII URL `https://<host>/<path>`. */
function sandbox() {
  const simulator = createDefaultSandbox();
  const server = createServer(async (req, res) => {
    const [, host = "", ...rest] = (req.url ?? "/").split("/");
    const answer = await simulator.fetch(new Request(`https://${host}/${rest.join("/")}`, { method: req.method }));
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  return { server, token: "" };
}

/**
 * Live memory (heap + buffers outside it) after a full collection, sampled while a request runs:
 * what the process holds, not the garbage it has yet to collect (which makes RSS and plain heap
 * readings noisy). Needs `--expose-gc`.
 */
const heapWatch = (() => {
  const gc = (globalThis as { gc?: () => void }).gc;
  const live = () => {
    if (!gc) throw new Error("start the bench server with --expose-gc to measure live memory");
    gc();
    const { heapUsed, external } = process.memoryUsage();
    return heapUsed + external;
  };
  let base = 0;
  let peak = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  return {
    start() {
      base = live();
      peak = base;
      timer = setInterval(() => {
        peak = Math.max(peak, live());
      }, 20);
      return { base, peak };
    },
    stop() {
      clearInterval(timer);
      return { base, peak };
    },
  };
})();

const started = mode === "gateway" ? await gateway() : mode === "bare" ? bare() : mode === "sandbox" ? sandbox() : null;
if (!started) throw new Error(`unknown mode ${mode}`);
started.server.listen(0, "127.0.0.1", () => {
  const { port } = started.server.address() as AddressInfo;
  process.send?.({ ready: port, token: started.token });
});
process.on("message", (message) => {
  if (message === "cpu") {
    const { user, system } = process.cpuUsage();
    process.send?.({ cpu: user + system });
  }
  if (message === "heap-start") process.send?.({ heap: heapWatch.start() });
  if (message === "heap-stop") process.send?.({ heap: heapWatch.stop() });
  if (message === "stop") started.server.close(() => process.exit(0));
});
