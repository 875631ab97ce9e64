// The indicator readers on the SII's page shapes (fixtures rebuilt from public readers, each naming its
// sources in its first line), through the same functions the live path calls, over a transport that
// answers like www.sii.cl: ISO-8859-1 pages, 404 for a year not published.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { encodeLatin1 } from "../../src/lib/latin1.ts";
import { divSections } from "../../src/sii/html.ts";
import type { SiiContext } from "../../src/sii/http.ts";
import { correccionYear, segundaCategoriaMonth, ufYear } from "../../src/sii/indicadores.ts";
import { liveTransport } from "../../src/sii/transport.ts";

const FIXTURES = join(import.meta.dirname, "..", "fixtures", "sii", "indicadores");

/** A live-mode context whose SII serves the fixture named after the requested page. */
function siiServing(...files: string[]): SiiContext {
  const pages = new Map(files.map((file) => [file, readFileSync(join(FIXTURES, file), "utf8")]));
  const fetch = async (input: Request | string | URL) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const page = pages.get(url.pathname.split("/").at(-1) ?? "");
    if (url.hostname !== "www.sii.cl" || !page) return new Response("<h1>Not Found</h1>", { status: 404 });
    return new Response(encodeLatin1(page), { headers: { "content-type": "text/html; charset=ISO-8859-1" } });
  };
  return { transport: liveTransport(fetch as typeof globalThis.fetch), timeoutMs: 5_000 };
}

describe("UF yearly page", () => {
  it("reads each day from its <strong> header cell and the value after it", async () => {
    const year = await ufYear(siiServing("uf2026.htm"), 2026);
    expect(year?.[1]?.[1]).toBe(39_703.5);
    expect(year?.[1]?.[11]).toBe(39_717.2);
    expect(year?.[1]?.[31]).toBe(39_744.6);
    expect(Object.keys(year?.[1] ?? {})).toHaveLength(31);
  });

  it("leaves blank cells and days a month lacks unpublished", async () => {
    const february = (await ufYear(siiServing("uf2026.htm"), 2026))?.[2] ?? {};
    expect(Object.keys(february).map(Number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(february[9]).toBe(39_756.93);
  });

  it("answers null for a year the SII has no page for", async () => {
    expect(await ufYear(siiServing("uf2026.htm"), 2031)).toBeNull();
  });
});

describe("second-category tax yearly page", () => {
  it("reads `$ 926.734,50` amounts, the `-.-` first bracket and the `Y MÁS` last one", async () => {
    const august = (await segundaCategoriaMonth(siiServing("impuesto2025.htm"), 2025, 8))?.month;
    expect(august?.mensual).toHaveLength(8);
    expect(august?.mensual[0]).toEqual({ desde: 0, hasta: 926_734.5, factor: 0, rebaja: 0, tasa_efectiva_maxima: 0 });
    expect(august?.mensual[1]).toEqual({ desde: 926_734.51, hasta: 2_059_410, factor: 0.04, rebaja: 37_069.38, tasa_efectiva_maxima: 2.2 });
    expect(august?.mensual[7]).toEqual({
      desde: 21_280_570.01,
      hasta: null,
      factor: 0.4,
      rebaja: 2_664_876.54,
      tasa_efectiva_maxima: null,
    });
  });

  it("starts a new period at its named row and never takes the header rows for brackets", async () => {
    const august = (await segundaCategoriaMonth(siiServing("impuesto2025.htm"), 2025, 8))?.month;
    expect(august?.quincenal).toHaveLength(8);
    expect(august?.quincenal[0]?.hasta).toBe(463_367.25);
    expect(august?.quincenal[1]?.desde).toBe(463_367.26);
    expect([august?.semanal, august?.diario]).toEqual([[], []]);
  });
});

describe("a page's parts (divSections)", () => {
  const months = (html: string) => divSections(html, (id) => id.startsWith("mes_"));

  it("gives each wanted div's markup as the parser closes it, with its tables counted", () => {
    const page =
      "<body><DIV ID='mes_enero'><h3>Enero</h3><TABLE><tr><td>1</TABLE></div><div id='pie'>x</div>" +
      "<div id='mes_febrero'><div>dentro</div><table></table><table></table></DIV></body>";
    expect(months(page)).toEqual([
      { id: "mes_enero", html: "<DIV ID='mes_enero'><h3>Enero</h3><TABLE><tr><td>1</TABLE></div>", tables: 1 },
      { id: "mes_febrero", html: "<div id='mes_febrero'><div>dentro</div><table></table><table></table></DIV>", tables: 2 },
    ]);
  });

  it("ends a div closed by another tag where that tag starts, and one left open at the page's end", () => {
    expect(months("<body><div id='mes_enero'><table><tr><td>1</table></body><p>luego")).toEqual([
      { id: "mes_enero", html: "<div id='mes_enero'><table><tr><td>1</table>", tables: 1 },
    ]);
    expect(months("<div id='mes_enero'>a<table><tr><td>1")).toEqual([
      { id: "mes_enero", html: "<div id='mes_enero'>a<table><tr><td>1", tables: 1 },
    ]);
  });
});

describe("monetary correction yearly page", () => {
  it("reads the matrix: the initial capital's row and each month's, one cell per month column", async () => {
    const year = await correccionYear(siiServing("correccion2025.htm"), 2025);
    expect(year?.capital_inicial).toEqual({
      porcentaje: 3.4,
      factor: 1.034,
      porcentajes: [-0.2, 0.9, 1.3, 1.8, 2, 2.2, 1.7, 2.6, 2.7, 3.1, 3.2, 3.4],
    });
    expect(year?.meses[4]?.porcentajes).toEqual([null, null, null, null, null, 0.2, -0.2, 0.7, 0.7, 1.1, 1.2, 1.4]);
  });

  it("gives each month's correction to the year's end from December's column, December itself 0", async () => {
    const year = await correccionYear(siiServing("correccion2025.htm"), 2025);
    expect(year?.meses.map((m) => m.porcentaje)).toEqual([3.6, 2.6, 2.2, 1.6, 1.4, 1.2, 1.7, 0.8, 0.7, 0.3, 0.3, 0]);
    expect(year?.meses[0]).toMatchObject({ mes: 1, nombre_mes: "ENERO", factor: 1.036 });
    expect(year?.meses[11]).toMatchObject({ mes: 12, nombre_mes: "DICIEMBRE", porcentaje: 0, factor: 1 });
  });
});
