// The UF of a date, from the sandbox SII's yearly page, cached.
import { describe, expect, it } from "vitest";
import { decodeLatin1 } from "../../src/lib/latin1.ts";
import { Uf } from "../../src/routes/indicadores/uf.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { lastPublishedUf, sandboxUf, siiDecimal, ufYearPage } from "../../src/sandbox/indicadores.ts";
import { sandboxTransport, simulatorOf } from "../../src/sandbox/transport.ts";
import { ufPageUnits } from "../../src/services/indicadores.ts";
import { parseDailyYear } from "../../src/sii/indicadores.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { probeApp, tokenFor } from "../support/app.ts";

/** The gateway and the sandbox SII on one clock that the test moves. */
async function setup(start = new Date()) {
  const clock = { at: start };
  const t = probeApp();
  t.deps.clock = { now: () => clock.at };
  t.deps.sii = sandboxTransport(createDefaultSandbox({ now: () => clock.at.getTime() }));
  const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
  const get = (path: string) => t.app.request(path, { headers: { "x-api-token": token.secret } });
  return { ...t, clock, get, calls: () => simulatorOf(t.deps.sii).state.calls.get("indicadores") ?? 0 };
}

const path = (y: number, m: number, d: number) => `/api/v1/sii/indicadores/uf/anual/${y}/${m}/${d}`;

describe("UF", () => {
  it("reads the SII's page format: months in reverse order, 40.875,09 numbers, blank cells", async () => {
    const page = decodeLatin1(new Uint8Array(await ufYearPage(2024, new Date("2026-01-20T12:00:00Z")).arrayBuffer()));
    expect(page.indexOf("<h2>Diciembre</h2>")).toBeLessThan(page.indexOf("<h2>Enero</h2>"));
    expect(siiDecimal(40875.09)).toBe("40.875,09");
    const year = parseDailyYear(page, 2024);
    expect(Object.keys(year[2] ?? {})).toHaveLength(29); // 2024 is a leap year
    expect(year[12]?.[31]).toBe(sandboxUf(new Date(Date.UTC(2024, 11, 31))));
  });

  it("answers the value of a date; the call that reads the year's page pays a unit per started 16 KiB of it, a repeat call 1 and reaches no SII", async () => {
    const { get, calls } = await setup(new Date("2026-03-20T12:00:00Z"));
    const page = (await ufYearPage(2025, new Date("2026-03-20T12:00:00Z")).arrayBuffer()).byteLength;
    expect([page > 16 * 1024, ufPageUnits(page)]).toEqual([true, 2]);
    const res = await get(path(2025, 3, 15));
    expect([res.status, res.headers.get("x-quota-units")]).toEqual([200, "2"]);
    expect((await answerOf(res, Uf)).data).toEqual({ fecha: "2025-03-15", valor: sandboxUf(new Date(Date.UTC(2025, 2, 15))) });
    const cached = await get(path(2025, 7, 1));
    expect([cached.status, cached.headers.get("x-quota-units")]).toEqual([200, "1"]);
    expect(calls()).toBe(1);
  });

  it("answers 429 QUOTA_EXCEEDED when the plan cannot pay for reading the page: its weight paid (the SII was asked), nothing read or cached", async () => {
    const { app, deps, get, calls } = await setup(new Date("2026-03-20T12:00:00Z"));
    const poor = await tokenFor(deps, { scopes: ["sii:read"], account: "poor", plan: { daily_units: 1, monthly_units: 1000 } });
    const res = await app.request(path(2025, 3, 15), { headers: { "x-api-token": poor.secret } });
    const error = await errorOf(res);
    expect([res.status, error.error_code, error.details?.units_needed, res.headers.get("x-quota-units")]).toEqual([
      429,
      "QUOTA_EXCEEDED",
      1,
      "1",
    ]);
    expect(error.message).toMatch(/reading the SII's UF page of 2025/);
    // Nothing was read or cached: the next caller's call asks the SII again and pays for the page.
    expect(calls()).toBe(1);
    const paid = await get(path(2025, 3, 15));
    expect([paid.status, paid.headers.get("x-quota-units"), calls()]).toEqual([200, "2", 2]);
  });

  it("answers 404 for a date not yet published, and re-reads the current year at most hourly", async () => {
    const { get, calls, clock } = await setup(new Date("2026-04-08T23:30:00Z"));
    expect(lastPublishedUf(clock.at).toISOString().slice(0, 10)).toBe("2026-04-09");
    expect((await get(path(2026, 4, 9))).status).toBe(200);
    const unpublished = await get(path(2026, 4, 10));
    expect([unpublished.status, (await errorOf(unpublished)).error_code]).toEqual([404, "HTTP_404"]);
    expect(calls()).toBe(1);
    clock.at = new Date("2026-04-09T00:10:00Z"); // published now (until May 9), but the cache is still fresh
    expect((await get(path(2026, 4, 10))).status).toBe(404);
    clock.at = new Date("2026-04-09T00:45:00Z"); // an hour after the first read
    expect((await get(path(2026, 4, 10))).status).toBe(200);
    expect(calls()).toBe(2);
  });

  it("answers 404 for a year the SII does not publish, 400 for an impossible date", async () => {
    const { get } = await setup(new Date("2026-03-20T12:00:00Z"));
    expect((await get(path(2011, 5, 5))).status).toBe(404);
    expect((await get(path(2031, 5, 5))).status).toBe(404);
    for (const [y, m, d, field] of [
      [2025, 2, 29, "dia"],
      [2025, 13, 1, "mes"],
      [2025, 4, 31, "dia"],
      [1800, 1, 1, "anio"],
    ] as const) {
      const res = await get(path(y, m, d));
      expect(res.status, `${y}-${m}-${d}`).toBe(400);
      expect((await errorOf(res)).errors?.[0]?.path).toBe(field);
    }
  });

  it("maps SII throttling to 429, needs sii:read and a token", async () => {
    const { get, app, deps } = await setup();
    simulatorOf(deps.sii).state.faults.push({ service: "indicadores", fault: "throttle", remaining: 1 });
    expect((await get(path(2025, 1, 1))).status).toBe(429);
    const writer = await tokenFor(deps, { scopes: ["settings:read"] });
    expect((await app.request(path(2025, 1, 1), { headers: { "x-api-token": writer.secret } })).status).toBe(403);
    expect((await app.request(path(2025, 1, 1))).status).toBe(401);
  });
});
