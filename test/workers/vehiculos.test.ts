// Vehicle appraisals in workerd: the workbook is inflated with the runtime's own
// node:zlib (nodejs_compat), the index is stored in KV in parts, and another isolate's view of the same
// KV answers without downloading the workbook again.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { kvCacheStore } from "../../src/adapters/cloudflare/kv-cache.ts";
import { kvTokenStore } from "../../src/adapters/cloudflare/kv-tokens.ts";
import { memoryStores } from "../../src/adapters/memory/stores.ts";
import type { WorkerEnv } from "../../src/entry/worker.ts";
import type { CacheStore } from "../../src/ports/stores.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { sandboxTransport, simulatorOf } from "../../src/sandbox/transport.ts";
import { sandboxVehicles } from "../../src/sandbox/vehiculos.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const bindings = env as unknown as WorkerEnv;
const ROWS = 12_000;
const NOW = new Date("2026-03-20T12:00:00Z");

async function gateway(cache: CacheStore) {
  const t = probeApp({ ...memoryStores(), tokens: kvTokenStore(bindings.TOKENS), cache });
  t.deps.clock = { now: () => NOW };
  t.deps.sii = sandboxTransport(createDefaultSandbox({ now: () => NOW.getTime(), vehicleRows: ROWS }));
  const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
  const search = async (body: unknown) => {
    const res = await postJson(t.app, token.secret, "/api/v1/sii/vehiculos/tasacion/buscar", body);
    return { status: res.status, body: (await res.json()) as { data: { total: number; vehiculos: { codigo: string }[] } } };
  };
  return { search, downloads: () => simulatorOf(t.deps.sii).state.calls.get("vehiculos") ?? 0 };
}

describe("vehicle appraisals on Workers", () => {
  it("ingests the workbook into KV and answers later searches, in any isolate, from there", async () => {
    const kv = kvCacheStore(bindings.CACHE);
    const first = await gateway(kv);
    const filter = { categoria: 1, tipo: "AUTOMOVIL", marca: "TOYOTA", por_pagina: 500 };
    const a = await first.search(filter);
    expect(a.status).toBe(200);
    const expected = sandboxVehicles("liv", 2026, ROWS).filter((v) => v.tipo === "AUTOMOVIL" && v.marca === "TOYOTA");
    expect(a.body.data.total).toBe(expected.length);
    expect(new Set(a.body.data.vehiculos.map((v) => v.codigo))).toEqual(new Set(expected.map((v) => v.codigo).slice(0, 500)));
    expect(first.downloads()).toBe(1);

    // A fresh store object over the same namespace: nothing remembered in memory.
    const second = await gateway(kvCacheStore(bindings.CACHE));
    const b = await second.search(filter);
    expect(b.body.data).toEqual(a.body.data);
    expect(second.downloads()).toBe(0);
  });
});
