// Vehicle appraisals in this process: the gateway (SQLite storage, as the Node entry has it)
// ingesting the sandbox's 80 000-row light-vehicle workbook on the first search, the heap that
// takes, and the latency of later searches, which answer from the stored index.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/app.ts";
import { createNodeDeps } from "../src/entry/node-server.ts";
import { issueToken } from "../src/platform/tokens.ts";
import { createDefaultSandbox } from "../src/sandbox/index.ts";
import { sandboxTransport, simulatorOf } from "../src/sandbox/transport.ts";
import { appraisalFile } from "../src/sandbox/vehiculos.ts";

export interface VehicleFigure {
  name: string;
  unit: string;
  value: number;
}

const ROWS = 80_000;
const BUSCAR = "/api/v1/sii/vehiculos/tasacion/buscar";

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

export async function vehicleFigures(quick: boolean): Promise<VehicleFigure[]> {
  const deps = await createNodeDeps({
    env: { SII_UPSTREAM: "sandbox" },
    database: join(mkdtempSync(join(tmpdir(), "sii-bench-vehicles-")), "state.sqlite"),
    publicDir: "public",
    log: { log: () => {} },
  });
  const year = new Date().getUTCFullYear();
  deps.sii = sandboxTransport(createDefaultSandbox({ vehicleRows: ROWS }));
  const app = createApp(() => deps);
  const { secret } = await issueToken(
    deps.tokens,
    { name: "bench", account: "bench", scopes: ["sii:read"], plan: { daily_units: 1e9, monthly_units: 1e10 } },
    new Date(),
  );
  const search = async (body: unknown) => {
    const res = await app.request(BUSCAR, {
      method: "POST",
      headers: { "x-api-token": secret, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (res.status !== 200) throw new Error(`vehicle search answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as { data: { total: number } };
  };

  // The sandbox packs its workbook first, so the ingest figure is the gateway's work alone.
  const workbook = new Uint8Array(await (await appraisalFile("liv", year, ROWS, new Date())).arrayBuffer());
  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  let heapPeak = heapBefore;
  const sampler = setInterval(() => {
    heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
  }, 5);
  let started = performance.now();
  await search({ categoria: 1, tipo: "AUTOMOVIL" });
  const ingestMs = performance.now() - started;
  clearInterval(sampler);

  const makes = ["TOYOTA", "KIA", "SUZUKI", "HYUNDAI", "CHEVROLET", "NISSAN"];
  const bodies = [
    (i: number) => ({ categoria: 1, tipo: "AUTOMOVIL", marca: makes[i % makes.length] }),
    (i: number) => ({ categoria: 1, tipo: "STATION WAGON", modelo: "a", anio: year - (i % 10), por_pagina: 100 }),
    (i: number) => ({ categoria: 1, tipo: "CAMIONETA", version: "4x4", pagina: 1 + (i % 5) }),
  ];
  for (let i = 0; i < 30; i++) await search((bodies[i % bodies.length] as (i: number) => unknown)(i)); // warm
  const times: number[] = [];
  const count = quick ? 300 : 2000;
  for (let i = 0; i < count; i++) {
    started = performance.now();
    await search((bodies[i % bodies.length] as (i: number) => unknown)(i));
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const downloads = simulatorOf(deps.sii).state.calls.get("vehiculos") ?? 0;
  if (downloads !== 1) throw new Error(`the workbook was downloaded ${downloads} times, not once`);
  return [
    {
      name: `vehicles: ingest of a ${ROWS / 1000} k-row workbook (${(workbook.length / 1024 / 1024).toFixed(1)} MiB), first search`,
      unit: "ms",
      value: ingestMs,
    },
    { name: "vehicles: heap growth during the ingest", unit: "MiB", value: (heapPeak - heapBefore) / 1024 / 1024 },
    { name: `vehicles: search from the index, p50 (${count} searches)`, unit: "ms", value: percentile(times, 0.5) },
    { name: "vehicles: search from the index, p99", unit: "ms", value: percentile(times, 0.99) },
  ];
}
