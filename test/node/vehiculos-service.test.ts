// The vehicle service serves a caller that is no HTTP request: the lists and the search take a
// Caller built from the test app's deps, answer plain data, and charge the workbook's rows
// through `caller.charge`.
import { describe, expect, it } from "vitest";
import type { Caller } from "../../src/platform/caller.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { sandboxTransport } from "../../src/sandbox/transport.ts";
import { sandboxVehicles } from "../../src/sandbox/vehiculos.ts";
import { categoryList, searchVehicles, workbookUnits } from "../../src/services/vehiculos.ts";
import { probeApp } from "../support/app.ts";

const NOW = new Date("2026-03-20T12:00:00Z");
const ROWS = 5000;

function setup() {
  const { deps } = probeApp();
  deps.clock = { now: () => NOW };
  deps.sii = sandboxTransport(createDefaultSandbox({ now: () => NOW.getTime(), vehicleRows: ROWS }));
  const charges: [number, string][] = [];
  const charge = async (units: number, why: string) => {
    charges.push([units, why]);
  };
  const caller: Caller = { deps, account: () => "acme", request: {}, charge, settle: async () => {} };
  return { caller, charges };
}

describe("the vehicle service", () => {
  it("lists a category's types for a Caller, charging the workbook's rows beyond the weight once", async () => {
    const { caller, charges } = setup();
    const list = await categoryList(caller, "tipos", 1, undefined, 1);
    expect(list).toMatchObject({ categoria: 1, anio: 2026 });
    expect(list.tipos).toContainEqual({ id: expect.any(Number), name: "AUTOMOVIL" });
    // The title block and header (12 rows), then one row per vehicle.
    const units = workbookUnits(12 + sandboxVehicles("liv", 2026, ROWS).length);
    expect(units).toBeGreaterThan(1);
    expect(charges).toEqual([[units - 1, "this call"]]);
    await categoryList(caller, "marcas", 1, undefined, 1);
    expect(charges).toHaveLength(1);
  });

  it("searches a type and answers one page of plain vehicles", async () => {
    const { caller } = setup();
    const expected = sandboxVehicles("liv", 2026, ROWS).filter((v) => v.tipo === "AUTOMOVIL");
    const found = await searchVehicles(caller, { categoria: 1, tipo: "automovil", por_pagina: 3 }, 2);
    expect(found).toMatchObject({ anio_tasa: 2026, tipo: { name: "AUTOMOVIL" }, total: expected.length, pagina: 1, por_pagina: 3 });
    expect(found.paginas).toBe(Math.ceil(expected.length / 3));
    expect(found.vehiculos).toHaveLength(3);
    expect(found.vehiculos.every((v) => v.tipo === "AUTOMOVIL")).toBe(true);
  });
});
