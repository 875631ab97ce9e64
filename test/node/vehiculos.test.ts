// Vehicle appraisals: the lists per category and the search, answered from the index of the
// sandbox SII's generated workbooks. Expected answers come from the generator's own vehicles,
// not from the gateway's reader.
import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { memoryCacheStore } from "../../src/adapters/memory/cache.ts";
import type { CacheStore } from "../../src/ports/stores.ts";
import { Characteristic } from "../../src/routes/vehiculos/categorias-caracteristicas.ts";
import { Named, workbookUnits } from "../../src/routes/vehiculos/schema.ts";
import { Result } from "../../src/routes/vehiculos/tasacion-buscar.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { sandboxTransport, simulatorOf } from "../../src/sandbox/transport.ts";
import { type SandboxVehicle, sandboxVehicles } from "../../src/sandbox/vehiculos.ts";
import { PART_CHARS } from "../../src/sii/vehiculos-index.ts";
import { answerOf, declaredAnswer, errorOf, valueAt } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const ROWS = 1500;
const NOW = new Date("2026-03-20T12:00:00Z");
const BUSCAR = "/api/v1/sii/vehiculos/tasacion/buscar";
const MOTOS = new Set(["MOTO", "CUATRIMOTO", "SCOOTER"]);

async function setup(options: { rows?: number; cache?: CacheStore } = {}) {
  const t = probeApp();
  t.deps.clock = { now: () => NOW };
  t.deps.sii = sandboxTransport(createDefaultSandbox({ now: () => NOW.getTime(), vehicleRows: options.rows ?? ROWS }));
  if (options.cache) t.deps.cache = options.cache;
  const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
  const get = (path: string) => t.app.request(path, { headers: { "x-api-token": token.secret } });
  const search = (body: unknown) => postJson(t.app, token.secret, BUSCAR, body);
  const sandbox = simulatorOf(t.deps.sii);
  // The lists' answers are built per list by the routes' factory: each is checked against the schema
  // its route registers, and its items read with the item schema the list's route gives.
  const listed = async (res: Response, list: "tipos" | "marcas" | "caracteristicas") =>
    answerOf(res, declaredAnswer(t.app, "get", `/api/v1/sii/vehiculos/categorias/${list}/{categoria}`));
  const named = async (list: "tipos" | "marcas", categoria: number) =>
    z.array(Named).parse(valueAt(await listed(await get(`/api/v1/sii/vehiculos/categorias/${list}/${categoria}`), list), "data", list));
  const traitsOf = async (categoria: number) =>
    z
      .array(Characteristic)
      .parse(
        valueAt(
          await listed(await get(`/api/v1/sii/vehiculos/categorias/caracteristicas/${categoria}`), "caracteristicas"),
          "data",
          "caracteristicas",
        ),
      );
  return { ...t, get, search, listed, named, traitsOf, token, sandbox, downloads: () => sandbox.state.calls.get("vehiculos") ?? 0 };
}

const light = (rows = ROWS) => sandboxVehicles("liv", 2026, rows);
const sorted = (names: Iterable<string>) => [...new Set(names)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const byOrder = (a: SandboxVehicle, b: SandboxVehicle) => {
  for (const key of ["marca", "modelo", "version", "anio", "codigo"] as const) {
    if (a[key] < b[key]) return -1;
    if (a[key] > b[key]) return 1;
  }
  return 0;
};

describe("vehicle lists per category", () => {
  it("lists the types, makes and characteristics the workbook has, numbered alphabetically", async () => {
    const { get, listed, named, traitsOf, downloads } = await setup();
    const cars = light().filter((v) => !MOTOS.has(v.tipo));
    const res = await get("/api/v1/sii/vehiculos/categorias/tipos/1");
    // The first call reads the workbook into the index: its 1 512 rows are 2 units.
    expect([res.status, res.headers.get("x-quota-units")]).toEqual([200, "2"]);
    const answer = await listed(res, "tipos");
    expect([valueAt(answer, "data", "categoria"), valueAt(answer, "data", "anio")]).toEqual([1, 2026]);
    expect(valueAt(answer, "data", "tipos")).toEqual(sorted(cars.map((v) => v.tipo)).map((name, i) => ({ id: i + 1, name })));

    const marcas = await named("marcas", 1);
    expect(marcas.map((m) => m.name)).toEqual(sorted(cars.map((v) => v.marca)));

    const traits = await traitsOf(1);
    expect(traits.map((t) => t.name)).toEqual(["Combustible", "Transmisión", "Tracción", "País", "Puertas"]);
    expect(traits[0]?.data.map((d) => d.name)).toEqual(sorted(cars.flatMap((v) => (v.combustible ? [v.combustible] : []))));
    expect(traits[4]?.data.map((d) => d.name)).toEqual(
      [...new Set(cars.flatMap((v) => (v.puertas ? [String(v.puertas)] : [])))].sort((a, b) => Number(a) - Number(b)),
    );
    expect(downloads()).toBe(1);
  });

  it("keeps motorcycles and heavy vehicles apart: heavy ones have no fuel or doors", async () => {
    const { named, traitsOf, downloads } = await setup();
    const motos = await named("tipos", 3);
    expect(motos.map((t) => t.name)).toEqual(sorted(light().flatMap((v) => (MOTOS.has(v.tipo) ? [v.tipo] : []))));
    const heavy = sandboxVehicles("pes", 2026, ROWS);
    const pesados = await named("tipos", 2);
    expect(pesados.map((t) => t.name)).toEqual(sorted(heavy.map((v) => v.tipo)));
    const traits = await traitsOf(2);
    expect(traits.map((t) => t.name)).toEqual(["Transmisión", "Tracción", "País"]);
    expect(downloads()).toBe(2); // one light workbook (categories 1 and 3), one heavy
  });

  it("answers 400 for a category that is not 1 to 3 or a year before 2020, 404 for a year not published", async () => {
    const { get } = await setup();
    for (const path of ["tipos/4", "marcas/0", "caracteristicas/livianos"]) {
      const res = await get(`/api/v1/sii/vehiculos/categorias/${path}`);
      expect([res.status, (await errorOf(res)).errors?.[0]?.path], path).toEqual([400, "categoria"]);
    }
    const old = await get("/api/v1/sii/vehiculos/categorias/tipos/1?anio_tasa=2019");
    expect([old.status, (await errorOf(old)).errors?.[0]?.path]).toEqual([400, "anio_tasa"]);
    const future = await get("/api/v1/sii/vehiculos/categorias/tipos/1?anio_tasa=2027");
    expect([future.status, (await errorOf(future)).error_code]).toEqual([404, "HTTP_404"]);
    expect((await get("/api/v1/sii/vehiculos/categorias/tipos/1?anio_tasa=2024")).status).toBe(200);
  });
});

describe("appraisal search", () => {
  it("finds every vehicle of a type with all the workbook's columns, sorted, and downloads the workbook once", async () => {
    const { named, search, downloads } = await setup();
    const tipos = await named("tipos", 1);
    const camioneta = tipos.find((t) => t.name === "CAMIONETA")!;
    const expected = light()
      .filter((v) => v.tipo === "CAMIONETA")
      .sort(byOrder);
    const res = await search({ categoria: 1, tipo: camioneta.id, por_pagina: 500 });
    expect([res.status, res.headers.get("x-quota-units")]).toEqual([200, "2"]);
    const { data } = await answerOf(res, Result);
    expect(data).toMatchObject({
      anio_tasa: 2026,
      categoria: { id: 1, name: "Livianos" },
      tipo: camioneta,
      total: expected.length,
      pagina: 1,
    });
    expect(data.vehiculos).toEqual(expected.slice(0, 500));
    expect(data.vehiculos[0]).toMatchObject({ tasacion: expect.any(Number), permiso: expect.any(Number), cilindrada: expect.any(Number) });

    // The same search by the type's name, and more searches: still one download.
    const again = (await answerOf(await search({ categoria: 1, tipo: "camioneta", por_pagina: 500 }), Result)).data;
    expect(again.vehiculos).toEqual(data.vehiculos);
    await search({ categoria: 1, tipo: "AUTOMOVIL", marca: "TOYOTA" });
    expect(downloads()).toBe(1);
  });

  it("reads the workbook once when the first searches of the year arrive together", async () => {
    const { search, downloads } = await setup();
    const answers = await Promise.all(["AUTOMOVIL", "CAMIONETA", "JEEP", "FURGON"].map((tipo) => search({ categoria: 1, tipo })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(downloads()).toBe(1);
  });

  it("filters by make (id or name), model, version and model year", async () => {
    const { named, search } = await setup();
    const cars = light().filter((v) => v.tipo === "STATION WAGON");
    const marcas = await named("marcas", 1);
    const toyota = marcas.find((m) => m.name === "TOYOTA")!;
    const toyotas = cars.filter((v) => v.marca === "TOYOTA").sort(byOrder);
    const byId = (await answerOf(await search({ categoria: 1, tipo: "STATION WAGON", marca: toyota.id, por_pagina: 500 }), Result)).data;
    expect(byId.vehiculos.map((v) => v.codigo)).toEqual(toyotas.map((v) => v.codigo));
    const byName = (await answerOf(await search({ categoria: 1, tipo: "STATION WAGON", marca: "toyota", por_pagina: 500 }), Result)).data;
    expect(byName.total).toBe(toyotas.length);

    const year = toyotas[0]!.anio;
    const narrow = (
      await answerOf(await search({ categoria: 1, tipo: "STATION WAGON", modelo: "rav", version: " at", anio: year }), Result)
    ).data;
    const wanted = cars.filter((v) => v.modelo.includes("RAV") && v.version.includes(" AT") && v.anio === year).sort(byOrder);
    expect(wanted.length).toBeGreaterThan(0);
    expect(narrow.vehiculos.map((v) => v.codigo)).toEqual(wanted.map((v) => v.codigo).slice(0, 50));

    const none = (await answerOf(await search({ categoria: 1, tipo: "STATION WAGON", marca: "NO EXISTE" }), Result)).data;
    expect([none.total, none.paginas, none.vehiculos]).toEqual([0, 0, []]);
  });

  it("pages through the results without gaps or repeats", async () => {
    const { search } = await setup();
    const all = light()
      .filter((v) => v.tipo === "AUTOMOVIL")
      .sort(byOrder);
    const first = (await answerOf(await search({ categoria: 1, tipo: "AUTOMOVIL", por_pagina: 40 }), Result)).data;
    expect([first.total, first.paginas, first.por_pagina]).toEqual([all.length, Math.ceil(all.length / 40), 40]);
    const codes: string[] = [];
    for (let pagina = 1; pagina <= first.paginas; pagina++) {
      const page = (await answerOf(await search({ categoria: 1, tipo: "AUTOMOVIL", por_pagina: 40, pagina }), Result)).data;
      codes.push(...page.vehiculos.map((v) => v.codigo));
    }
    expect(codes).toEqual(all.map((v) => v.codigo));
    const past = (await answerOf(await search({ categoria: 1, tipo: "AUTOMOVIL", pagina: first.paginas + 1 }), Result)).data;
    expect(past.vehiculos).toEqual([]);
  });

  it("searches heavy vehicles, whose workbook has no doors, power, fuel or permit", async () => {
    const { search } = await setup();
    const buses = sandboxVehicles("pes", 2026, ROWS)
      .filter((v) => v.tipo === "BUS")
      .sort(byOrder);
    const { data } = await answerOf(await search({ categoria: 2, tipo: "BUS", por_pagina: 500 }), Result);
    expect(data.vehiculos).toEqual(buses);
    expect(data.vehiculos[0]).toMatchObject({ puertas: null, potencia: null, combustible: null, permiso: null });
  });

  it("says which of categoria and tipo is missing, in the words other gateways use", async () => {
    const { search, downloads } = await setup();
    const cases: [unknown, string[], string][] = [
      [{ tipo: 1 }, ["categoria"], "Debe especificar la categoría del vehículo."],
      [{ categoria: 1 }, ["tipo"], "Debe especificar el tipo de vehículo."],
      [{}, ["categoria", "tipo"], "Debe especificar"],
      [{ categoria: 4, tipo: 1 }, ["categoria"], "must be 1, 2 or 3"],
      [{ categoria: 1, tipo: 1, anio_tasa: 2019 }, ["anio_tasa"], "must be 2020"],
      [{ categoria: 1, tipo: 1, anio: 1800 }, ["anio"], "must be 1900"],
      [{ categoria: 1, tipo: 1, pagina: 0 }, ["pagina"], "must be 1 or more"],
      [{ categoria: 1, tipo: 1, por_pagina: 501 }, ["por_pagina"], "must be 1 to 500"],
    ];
    for (const [body, paths, message] of cases) {
      const res = await search(body);
      const answer = await errorOf(res);
      // The body's schema states these rules: a body that breaks them is malformed (422).
      expect([res.status, answer.error_code], JSON.stringify(body)).toEqual([422, "VALIDATION_ERROR"]);
      expect(answer.errors?.map((e) => e.path)).toEqual(paths);
      expect(answer.errors?.[0]?.message).toContain(message);
    }
    expect(downloads()).toBe(0);
    const unknownType = await search({ categoria: 1, tipo: 99 });
    expect([unknownType.status, (await errorOf(unknownType)).errors?.[0]?.path]).toEqual([400, "tipo"]);
    for (const [body, path] of [
      [{ categoria: "uno", tipo: 1 }, "categoria"],
      [{ categoria: 1, tipo: true }, "tipo"],
      [{ categoria: 1, tipo: 1, marca: [] }, "marca"],
      [{ categoria: 1, tipo: 1, modelo: 5 }, "modelo"],
      [{ categoria: 1, tipo: 1, version: null }, "version"],
      [{ categoria: 1, tipo: 1, anio: 2017.5 }, "anio"],
      [{ categoria: 1, tipo: 1, pagina: "2" }, "pagina"],
    ] as const) {
      const wrongShape = await search(body);
      expect([wrongShape.status, (await errorOf(wrongShape)).errors?.[0]?.path], JSON.stringify(body)).toEqual([422, path]);
    }
  });

  it("uses last year's workbook while this year's is not published, and does not ask again within the hour", async () => {
    const t = probeApp();
    const newYear = new Date("2027-01-03T12:00:00Z");
    t.deps.clock = { now: () => newYear };
    // The SII's clock is still in 2026: it has not published the 2027 workbook.
    t.deps.sii = sandboxTransport(createDefaultSandbox({ now: () => NOW.getTime(), vehicleRows: ROWS }));
    const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
    const res = await postJson(t.app, token.secret, BUSCAR, { categoria: 1, tipo: "AUTOMOVIL" });
    const { data } = await answerOf(res, Result);
    expect([res.status, data.anio_tasa]).toEqual([200, 2026]);
    const asked = simulatorOf(t.deps.sii).state.calls.get("vehiculos");
    expect(asked).toBe(2); // 2027 (not found), then 2026
    await postJson(t.app, token.secret, BUSCAR, { categoria: 1, tipo: "AUTOMOVIL" });
    const explicit = await postJson(t.app, token.secret, BUSCAR, { categoria: 1, tipo: "AUTOMOVIL", anio_tasa: 2027 });
    expect(explicit.status).toBe(404);
    expect(simulatorOf(t.deps.sii).state.calls.get("vehiculos")).toBe(2);
  });

  it("answers 404 for an appraisal year the SII has not published", async () => {
    const { search } = await setup();
    const res = await search({ categoria: 1, tipo: 1, anio_tasa: 2027 });
    expect([res.status, (await errorOf(res)).message]).toEqual([
      404,
      "The SII has not published the light vehicle appraisal workbook of 2027",
    ]);
  });
});

describe("the index in storage", () => {
  it("is cut into parts every store accepts, and a new isolate answers from it without downloading", async () => {
    const rows = 9000;
    const store = memoryCacheStore();
    const sizes: number[] = [];
    const recording: CacheStore = {
      get: (key, now) => store.get(key, now),
      put: (key, value, now, ttl) => {
        sizes.push(value.length);
        return store.put(key, value, now, ttl);
      },
    };
    const first = await setup({ rows, cache: recording });
    const a = (await answerOf(await first.search({ categoria: 1, tipo: "AUTOMOVIL", marca: "KIA", por_pagina: 500 }), Result)).data;
    expect(Math.max(...sizes)).toBeLessThanOrEqual(PART_CHARS);
    expect(sizes.filter((size) => size === PART_CHARS).length).toBeGreaterThan(0); // some shard took several parts

    // Another isolate: same storage, nothing remembered in memory, its own (counting) sandbox.
    const second = await setup({ rows, cache: { get: (k, n) => store.get(k, n), put: (k, v, n, t) => store.put(k, v, n, t) } });
    const b = (await answerOf(await second.search({ categoria: 1, tipo: "AUTOMOVIL", marca: "KIA", por_pagina: 500 }), Result)).data;
    expect(b).toEqual(a);
    expect(a.total).toBe(light(rows).filter((v) => v.tipo === "AUTOMOVIL" && v.marca === "KIA").length);
    expect(second.downloads()).toBe(0);
  });
});

describe("upstream failures and access", () => {
  it("passes the SII's maintenance page on as 503 and a server error as 502, then recovers", async () => {
    const { search, sandbox } = await setup();
    sandbox.state.faults.push({ service: "vehiculos", fault: "maintenance", remaining: 1 });
    const down = await search({ categoria: 1, tipo: 1 });
    const body = await errorOf(down);
    expect([down.status, body.error_code, down.headers.get("retry-after"), down.headers.get("x-quota-units")]).toEqual([
      503,
      "SII_UNAVAILABLE",
      "300",
      "0",
    ]);
    expect(body.details?.sii_message).toContain("no se puede responder a sus requerimientos");

    sandbox.state.faults.push({ service: "vehiculos", fault: "http_5xx", remaining: 2 });
    const failed = await search({ categoria: 1, tipo: 1 });
    expect([failed.status, (await errorOf(failed)).details?.sii_status]).toEqual([502, 500]);

    sandbox.state.faults.push({ service: "vehiculos", fault: "truncated", remaining: 1 });
    const cut = await search({ categoria: 1, tipo: 1 });
    expect([cut.status, (await errorOf(cut)).details?.service]).toEqual([502, "vehiculos"]);

    expect((await search({ categoria: 1, tipo: 1 })).status).toBe(200);
  });

  it("needs a token (401) with the sii:read scope (403)", async () => {
    const { app, deps } = await setup();
    expect((await app.request("/api/v1/sii/vehiculos/categorias/tipos/1")).status).toBe(401);
    expect((await app.request(BUSCAR, { method: "POST", body: "{}", headers: { "content-type": "application/json" } })).status).toBe(401);
    const writer = await tokenFor(deps, { scopes: ["sii:write"] });
    const res = await app.request("/api/v1/sii/vehiculos/categorias/marcas/1", { headers: { "x-api-token": writer.secret } });
    expect([res.status, (await errorOf(res)).error_code]).toEqual([403, "INSUFFICIENT_SCOPE"]);
    const post = await postJson(app, writer.secret, BUSCAR, { categoria: 1, tipo: 1 });
    expect([post.status, (await errorOf(post)).error_code]).toEqual([403, "INSUFFICIENT_SCOPE"]);
  });
});

describe("the charge for reading the workbook", () => {
  const rows = 5000;
  // The sheet's rows: the title block and header (12 rows), then one per vehicle.
  const sheetRows = 12 + light(rows).length;
  const units = workbookUnits(sheetRows);
  const charged = (res: Response) => [res.status, res.headers.get("x-quota-units")];
  const TIPOS = "/api/v1/sii/vehiculos/categorias/tipos/1";

  async function accounts() {
    const t = await setup({ rows });
    const caller = async (account: string, daily_units = 1000) => {
      const { secret } = await tokenFor(t.deps, { scopes: ["sii:read"], account, plan: { daily_units, monthly_units: 10_000 } });
      return {
        get: (path: string) => t.app.request(path, { headers: { "x-api-token": secret } }),
        search: (body: unknown) => postJson(t.app, secret, BUSCAR, body),
      };
    };
    return { ...t, caller };
  }

  it("charges the call that reads it per started block of rows; later calls, of any account, pay their weight", async () => {
    expect(units).toBeGreaterThan(2);
    const { get, search, caller, downloads } = await accounts();
    expect(charged(await get(TIPOS))).toEqual([200, String(units)]);
    expect(charged(await get("/api/v1/sii/vehiculos/categorias/marcas/1"))).toEqual([200, "1"]);
    expect(charged(await search({ categoria: 1, tipo: "AUTOMOVIL" }))).toEqual([200, "2"]);
    const other = await caller("other");
    expect(charged(await other.search({ categoria: 3, tipo: "MOTO" }))).toEqual([200, "2"]);
    expect(downloads()).toBe(1);
    // The heavy workbook is another read, paid by the search that makes it.
    const heavy = 12 + sandboxVehicles("pes", 2026, rows).length;
    expect(charged(await other.search({ categoria: 2, tipo: "BUS" }))).toEqual([200, String(Math.max(2, workbookUnits(heavy)))]);
  });

  it("charges one of two first calls arriving together for the read, the other its weight", async () => {
    const { caller, downloads } = await accounts();
    const [a, b] = [await caller("a"), await caller("b")];
    const answers = await Promise.all([a.get(TIPOS), b.search({ categoria: 1, tipo: "JEEP" })]);
    expect(answers.map((res) => res.status)).toEqual([200, 200]);
    // Whichever reads the workbook pays for its rows; the other, its weight (1 for the list, 2 for the search).
    const paid = answers.map((res) => Number(res.headers.get("x-quota-units")));
    expect([
      [units, 2],
      [1, units],
    ]).toContainEqual(paid);
    expect(downloads()).toBe(1);
  });

  it("refuses a caller who cannot pay for the rows with 429 before reading them: nothing is built", async () => {
    const { caller, downloads } = await accounts();
    const poor = await caller("poor", units - 1);
    const refused = await poor.get(TIPOS);
    const error = await errorOf(refused);
    expect([refused.status, error.error_code, error.details?.units_needed]).toEqual([429, "QUOTA_EXCEEDED", units - 1]);
    // Its weight is charged, as for any call that asked the SII (the workbook's download).
    expect(refused.headers.get("x-quota-units")).toBe("1");
    // Nothing was built: the next caller reads the workbook again and pays for it.
    const rich = await caller("rich");
    expect(charged(await rich.get(TIPOS))).toEqual([200, String(units)]);
    expect(downloads()).toBe(2);
    // Once built, the poor account's calls pay their weight.
    expect(charged(await poor.get(TIPOS))).toEqual([200, "1"]);
  });

  it("has a call waiting for a read its caller could not pay for read the workbook itself, and pay for it", async () => {
    const { caller, downloads, deps } = await accounts();
    const [poor, rich] = [await caller("poor", units - 1), await caller("rich")];
    // The poor caller's extra units are held until the rich caller waits for its read.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding = false;
    const quota = deps.quota;
    deps.quota = {
      consume: async (tokenId, n, plan, now) => {
        if (n > 1 && !holding) {
          holding = true;
          await held;
        }
        return quota.consume(tokenId, n, plan, now);
      },
      refund: (tokenId, n, at) => quota.refund(tokenId, n, at),
      peek: (tokenId, plan, now) => quota.peek(tokenId, plan, now),
    };
    const first = poor.get(TIPOS);
    while (!holding) await new Promise((resolve) => setTimeout(resolve, 1));
    const second = rich.search({ categoria: 1, tipo: "JEEP" });
    // Let the rich call reach the read under way (its token, its weight, the cache), then refuse the poor one.
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 1));
    release();
    const [refused, answered] = await Promise.all([first, second]);
    expect(charged(refused)).toEqual([429, "1"]);
    expect(charged(answered)).toEqual([200, String(units)]);
    expect(downloads()).toBe(2);
  });
});
