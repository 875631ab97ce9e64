// Corrección monetaria and the second-category tax table, from the sandbox SII's yearly pages.
import { describe, expect, it } from "vitest";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { sandboxUtm } from "../../src/sandbox/indicadores.ts";
import { sandboxTransport } from "../../src/sii/transport.ts";
import { bodyOf, type Loose, probeApp, tokenFor } from "../support/app.ts";

async function setup(at = new Date("2026-03-20T12:00:00Z")) {
  const t = probeApp();
  t.deps.clock = { now: () => at };
  t.deps.sii = sandboxTransport(createDefaultSandbox({ now: () => at.getTime() }));
  const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
  const get = (path: string) => t.app.request(path, { headers: { "x-api-token": token.secret } });
  return { ...t, get, calls: () => t.deps.sii.sandbox!.state.calls.get("indicadores") ?? 0 };
}

describe("corrección monetaria", () => {
  it("gives the twelve months with percentage and factor, cached for a complete year", async () => {
    const { get, calls } = await setup();
    const res = await get("/api/v1/sii/indicadores/correccion_monetaria/anual/2024");
    expect([res.status, res.headers.get("x-quota-units")]).toEqual([200, "1"]);
    const { data } = await bodyOf(res);
    expect(data.meses.map((m: Loose) => m.mes)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    const january = data.meses[0];
    const expected = sandboxUtm(2024, 12) / sandboxUtm(2024, 1);
    expect(january.nombre_mes).toBe("ENERO");
    expect(january.factor).toBeCloseTo(expected, 3);
    expect(january.porcentaje).toBeCloseTo((expected - 1) * 100, 1);
    expect(data.meses[11].factor).toBe(1);
    await get("/api/v1/sii/indicadores/correccion_monetaria/anual/2024");
    expect(calls()).toBe(1);
  });

  it("leaves months not yet published as null, and a year not published is a 404", async () => {
    const { get } = await setup();
    const { data } = await bodyOf(await get("/api/v1/sii/indicadores/correccion_monetaria/anual/2026"));
    expect(data.meses[2].factor).not.toBeNull();
    expect(data.meses[3]).toMatchObject({ mes: 4, porcentaje: null, factor: null });
    expect((await get("/api/v1/sii/indicadores/correccion_monetaria/anual/2027")).status).toBe(404);
    expect((await get("/api/v1/sii/indicadores/correccion_monetaria/anual/19")).status).toBe(400);
  });
});

describe("impuesto único de segunda categoría", () => {
  it("gives the month's brackets per period: exempt first, no upper limit last", async () => {
    const { get } = await setup();
    const res = await get("/api/v1/sii/indicadores/impuesto_segunda_categoria/anual/2025/3");
    expect(res.status).toBe(200);
    const { data } = await bodyOf(res);
    expect([data.anio, data.mes]).toEqual([2025, 3]);
    for (const period of ["mensual", "quincenal", "semanal", "diario"]) expect(data[period], period).toHaveLength(8);
    const [first, second] = data.mensual;
    const last = data.mensual.at(-1);
    const utm = sandboxUtm(2025, 3);
    expect(first).toEqual({ desde: 0, hasta: Math.round(13.5 * utm * 100) / 100, factor: 0, rebaja: 0, tasa_efectiva_maxima: 0 });
    expect(second.factor).toBe(0.04);
    expect(second.rebaja).toBeCloseTo(0.04 * 13.5 * utm, 1);
    expect(last).toMatchObject({ hasta: null, factor: 0.4, tasa_efectiva_maxima: null });
    expect(data.quincenal[1].desde).toBeCloseTo((13.5 * utm) / 2, 1);
  });

  it("answers 404 for a month not published and 400 for a bad month", async () => {
    const { get } = await setup();
    expect((await get("/api/v1/sii/indicadores/impuesto_segunda_categoria/anual/2026/5")).status).toBe(404);
    expect((await get("/api/v1/sii/indicadores/impuesto_segunda_categoria/anual/2026/3")).status).toBe(200);
    const bad = await get("/api/v1/sii/indicadores/impuesto_segunda_categoria/anual/2026/13");
    expect([bad.status, (await bodyOf(bad)).errors[0].path]).toEqual([400, "mes"]);
  });
});
