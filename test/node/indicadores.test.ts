// Corrección monetaria and the second-category tax table, from the sandbox SII's yearly pages.
import { describe, expect, it } from "vitest";
import { decodeLatin1 } from "../../src/lib/latin1.ts";
import { Table } from "../../src/routes/indicadores/correccion-monetaria.ts";
import { Table as Brackets } from "../../src/routes/indicadores/impuesto-segunda-categoria.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { correccionPage, impuestoSegundaPage, sandboxUtm } from "../../src/sandbox/indicadores.ts";
import { sandboxTransport, simulatorOf } from "../../src/sandbox/transport.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { probeApp, tokenFor } from "../support/app.ts";

async function setup(at = new Date("2026-03-20T12:00:00Z")) {
  const t = probeApp();
  t.deps.clock = { now: () => at };
  t.deps.sii = sandboxTransport(createDefaultSandbox({ now: () => at.getTime() }));
  const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
  const get = (path: string) => t.app.request(path, { headers: { "x-api-token": token.secret } });
  return { ...t, get, calls: () => simulatorOf(t.deps.sii).state.calls.get("indicadores") ?? 0 };
}

/** The sandbox's percentages: one decimal, as the SII publishes them. */
const round1 = (value: number) => Math.round(value * 10) / 10;

describe("corrección monetaria", () => {
  it("gives each month's correction to the year's end and the whole matrix, cached for a complete year", async () => {
    const { get, calls } = await setup();
    const res = await get("/api/v1/sii/indicadores/correccion_monetaria/anual/2024");
    expect([res.status, res.headers.get("x-quota-units")]).toEqual([200, "1"]);
    const { data } = await answerOf(res, Table);
    expect(data.meses.map((m) => m.mes)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    const january = data.meses[0];
    const porcentaje = round1((sandboxUtm(2024, 12) / sandboxUtm(2024, 1) - 1) * 100);
    expect(january).toMatchObject({ nombre_mes: "ENERO", porcentaje });
    expect(january?.factor).toBeCloseTo(1 + porcentaje / 100, 4);
    expect(january?.porcentajes[0]).toBeNull();
    expect(january?.porcentajes[1]).toBe(round1((sandboxUtm(2024, 2) / sandboxUtm(2024, 1) - 1) * 100));
    expect(data.capital_inicial.porcentaje).toBe(round1((sandboxUtm(2024, 12) / sandboxUtm(2023, 12) - 1) * 100));
    expect(data.capital_inicial.porcentajes).toHaveLength(12);
    expect(data.meses[11]).toMatchObject({ porcentaje: 0, factor: 1 });
    await get("/api/v1/sii/indicadores/correccion_monetaria/anual/2024");
    expect(calls()).toBe(1);
  });

  it("leaves columns not yet published as null, and a year not published is a 404", async () => {
    const { get } = await setup();
    const { data } = await answerOf(await get("/api/v1/sii/indicadores/correccion_monetaria/anual/2026"), Table);
    expect(data.meses[0]?.porcentajes.map((p) => p !== null)).toEqual([false, true, true, ...Array(9).fill(false)]);
    expect(data.capital_inicial.porcentajes.slice(0, 4).map((p) => p !== null)).toEqual([true, true, true, false]);
    // The year's end is not published until December's column is.
    expect(data.meses.every((m) => m.porcentaje === null && m.factor === null)).toBe(true);
    expect(data.meses[3]).toMatchObject({ mes: 4, porcentaje: null, factor: null });
    expect((await get("/api/v1/sii/indicadores/correccion_monetaria/anual/2027")).status).toBe(404);
    expect((await get("/api/v1/sii/indicadores/correccion_monetaria/anual/19")).status).toBe(400);
  });

  it("is served by the sandbox as the SII's matrix: HTML 4.01 cells without closing tags", async () => {
    const page = decodeLatin1(new Uint8Array(await correccionPage(2024, new Date("2026-03-20T12:00:00Z")).arrayBuffer()));
    expect(page).toContain("<tr><th>Capital Inicial<td>");
    expect(page).not.toContain("</td>");
  });
});

describe("impuesto único de segunda categoría", () => {
  it("gives the month's brackets per period: exempt first, no upper limit last", async () => {
    const { get } = await setup();
    const res = await get("/api/v1/sii/indicadores/impuesto_segunda_categoria/anual/2025/3");
    expect(res.status).toBe(200);
    const { data } = await answerOf(res, Brackets);
    expect([data.anio, data.mes]).toEqual([2025, 3]);
    for (const period of ["mensual", "quincenal", "semanal", "diario"] as const) expect(data[period], period).toHaveLength(8);
    const [first, second] = data.mensual;
    const last = data.mensual.at(-1);
    const utm = sandboxUtm(2025, 3);
    expect(first).toEqual({ desde: 0, hasta: Math.round(13.5 * utm * 100) / 100, factor: 0, rebaja: 0, tasa_efectiva_maxima: 0 });
    expect(second?.factor).toBe(0.04);
    expect(second?.rebaja).toBeCloseTo(0.04 * 13.5 * utm, 1);
    expect(last).toMatchObject({ hasta: null, factor: 0.4, tasa_efectiva_maxima: null });
    expect(data.quincenal[1]?.desde).toBeCloseTo((13.5 * utm) / 2, 1);
  });

  it("is served by the sandbox with the SII's `$` amounts, `-.-` and `Y MÁS`", async () => {
    const page = decodeLatin1(new Uint8Array(await impuestoSegundaPage(2025, new Date("2026-03-20T12:00:00Z")).arrayBuffer()));
    expect(page).toContain("<td>MENSUAL</td><td>-.-</td><td>$ ");
    expect(page).toContain("<td>Y M&Aacute;S</td>");
    expect(page).toContain("id='mes_marzo'");
  });

  it("answers 404 for a month not published and 400 for a bad month", async () => {
    const { get } = await setup();
    expect((await get("/api/v1/sii/indicadores/impuesto_segunda_categoria/anual/2026/5")).status).toBe(404);
    expect((await get("/api/v1/sii/indicadores/impuesto_segunda_categoria/anual/2026/3")).status).toBe(200);
    const bad = await get("/api/v1/sii/indicadores/impuesto_segunda_categoria/anual/2026/13");
    expect([bad.status, (await errorOf(bad)).errors?.[0]?.path]).toEqual([400, "mes"]);
  });
});
