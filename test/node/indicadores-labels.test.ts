// The indicator pages read by header label and checked: columns in another order or renamed to a known
// synonym read the same numbers; a header missing, or data that breaks what the page promises, is a 502
// SII_FORMAT_CHANGED, never a 200 with other numbers. Pages are the fixtures (reconstructions, see their
// first line) and the sandbox's, edited cell by cell.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeLatin1, encodeLatin1 } from "../../src/lib/latin1.ts";
import type { SiiTransport } from "../../src/ports/transport.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { sandboxTransport } from "../../src/sandbox/transport.ts";
import type { SiiContext } from "../../src/sii/http.ts";
import { correccionYear, segundaCategoriaMonth, ufYear } from "../../src/sii/indicadores.ts";
import { liveTransport } from "../../src/sii/transport.ts";
import { errorOf } from "../support/answers.ts";
import { probeApp, tokenFor } from "../support/app.ts";
import { failure } from "../support/sii.ts";

const FIXTURES = join(import.meta.dirname, "..", "fixtures", "sii", "indicadores");
const fixture = (file: string) => readFileSync(join(FIXTURES, file), "utf8");

/** A live-mode context whose www.sii.cl answers every page with `page`. */
function serving(page: string): SiiContext {
  const fetch = async () => new Response(encodeLatin1(page), { headers: { "content-type": "text/html; charset=ISO-8859-1" } });
  return { transport: liveTransport(fetch as typeof globalThis.fetch), timeoutMs: 5_000 };
}

/** Every table row of `page` rewritten: `edit(cells, index)` gets the row's cells (markup included, closed or not) and returns the new ones. */
function editRows(page: string, edit: (cells: string[], row: number) => string[]): string {
  let index = 0;
  return page.replace(/(<tr[^>]*>)([\s\S]*?)(?=<tr[\s>]|<\/tbody|<\/thead|<\/table)/gi, (_, open: string, inner: string) => {
    const cells = inner.split(/(?=<t[hd][\s>])/i).filter((part) => /^<t[hd]/i.test(part));
    const tail = /<\/tr>\s*$/i.test(inner) ? "</tr>\n" : "\n";
    const cleaned = cells.map((c) => c.replace(/<\/tr>\s*$/i, ""));
    return `${open}${edit(cleaned, index++).join("")}${tail}`;
  });
}

const swap = (cells: string[], a: number, b: number) => cells.map((c, i) => (i === a ? (cells[b] ?? "") : i === b ? (cells[a] ?? "") : c));
const details = (err: { init: { details?: Record<string, unknown> } }) => err.init.details ?? {};

/** The UF page with a `Día | Valor` header row above each month's days (the shape the public readers do not show). */
const withDailyHeader = (page: string) =>
  page.replace(
    /(<table[^>]*>)\n/g,
    "$1\n<thead><tr><th>D&iacute;a</th><th>Valor</th><th>D&iacute;a</th><th>Valor</th><th>D&iacute;a</th><th>Valor</th></tr></thead>\n",
  );

/**
 * The UF page as crilam/mcp-sii tests/fixtures/indicadores-uf.html shows it: no `mes_{month}` sections, each
 * month's `<h2>` in the first row of its own table, and after the months a footer table of (day, value) cells.
 */
const headingInTable = (page: string) =>
  page
    .replace(
      /<div class='meses' id='mes_\w+'>\n<h2>(\w+)<\/h2>\n<div class='table-responsive'>\n(<table[^>]*>)\n<tbody>/g,
      "$2\n<tbody>\n<tr><th colspan='6'><h2>$1</h2></th></tr>",
    )
    .replace(/<\/table>\n<\/div>\n<\/div>/g, "</table>")
    .replace(
      "</body>",
      "<div class='pie'><table class='table'><tbody><tr><th>1</th><td>99.999,99</td></tr></tbody></table></div>\n</body>",
    );

describe("UF page by label", () => {
  const reference = () => ufYear(serving(fixture("uf2026.htm")), 2026);

  it("reads the same values with a Día/Valor header row above the days", async () => {
    const page = withDailyHeader(fixture("uf2026.htm"));
    expect(page.match(/<thead><tr><th>D&iacute;a<\/th>/g)).toHaveLength(2);
    expect(await ufYear(serving(page), 2026)).toEqual(await reference());
  });

  it("reads the same values with each month's heading in the first row of its table and a footer table after them", async () => {
    const page = headingInTable(fixture("uf2026.htm"));
    expect(page).not.toContain("mes_enero");
    expect(page).toContain("<tbody>\n<tr><th colspan='6'><h2>Enero</h2></th></tr>");
    expect(await ufYear(serving(page), 2026)).toEqual(await reference());
  });

  it("reads the same values with each value before its day and the headers renamed to synonyms", async () => {
    const page = editRows(withDailyHeader(fixture("uf2026.htm")), (cells) => [1, 0, 3, 2, 5, 4].map((i) => cells[i] ?? ""))
      .replaceAll("D&iacute;a", "D&Iacute;AS")
      .replaceAll(">Valor<", ">Valores<");
    expect(page).toContain("<tr><td>39.745,97</td><th><strong>1</strong></th>");
    expect(await ufYear(serving(page), 2026)).toEqual(await reference());
  });

  it("answers a complete page that does not end in </html>", async () => {
    const page = fixture("uf2026.htm").replace(/<\/body>\s*<\/html>\s*$/i, "<!-- trailing -->\n");
    expect(await ufYear(serving(page), 2026)).toEqual(await reference());
  });

  it("refuses a page cut short (January lost after February's values) as cut short, not as data", async () => {
    const page = fixture("uf2026.htm");
    expect(page.indexOf("<tr><th><strong>10</strong>", page.indexOf("mes_enero"))).toBeGreaterThan(0);
    const cut = page.slice(0, page.indexOf("<tr><th><strong>10</strong>", page.indexOf("mes_enero")));
    const err = await failure(ufYear(serving(cut), 2026));
    expect([err.status, err.code]).toEqual([502, "SII_GATEWAY_ERROR"]);
  });

  it.each([
    ["the Valor header missing", (p: string) => withDailyHeader(p).replaceAll(">Valor<", ">Monto<"), /valor not found/],
    [
      "a value before its day without a header",
      (p: string) => p.replace("<th><strong>1</strong></th><td>39.703,50</td>", "<td>39.703,50</td><th><strong>1</strong></th>"),
      /ENERO: a row that is not \(day, value\) pairs/,
    ],
    ["a row that lost a cell", (p: string) => p.replace("<td>39.704,87</td>", ""), /ENERO: a row that is not \(day, value\) pairs/],
    [
      "a month heading in its table followed by a second table of that month's days",
      (p: string) =>
        headingInTable(p)
          .replace("<th>1</th><td>99.999,99</td>", "<th><strong>1</strong></th><td>39.703,50</td>")
          .replace("<div class='pie'>", "<h2>Enero</h2>"),
      /ENERO 1 given twice/,
    ],
    ["a day given twice", (p: string) => p.replace("<strong>2</strong>", "<strong>1</strong>"), /given twice/],
    ["a day out of range", (p: string) => p.replace("<strong>2</strong>", "<strong>32</strong>"), /not a day/],
    [
      "a month missing days before a later month",
      (p: string) => p.replace(/(id='mes_enero'[\s\S]*?<strong>12<\/strong><\/th>)<td>[^<]+<\/td>/, "$1<td></td>"),
      /ENERO: 30 days of 31, before a later month/,
    ],
  ])("refuses %s with SII_FORMAT_CHANGED", async (_, edit, check) => {
    const err = await failure(ufYear(serving(edit(fixture("uf2026.htm"))), 2026));
    expect([err.status, err.code, details(err).service]).toEqual([502, "SII_FORMAT_CHANGED", "indicadores"]);
    expect(String(details(err).check)).toMatch(check);
  });
});

/** The tax page with its `<thead>` replaced by `rows`. */
const taxHeader = (page: string, rows: string) => page.replace(/<thead>[\s\S]*?<\/thead>/, `<thead>\n${rows}\n</thead>`);

/** Two header rows of six cells, the labels above and Desde/Hasta below (the project's earlier reconstruction). */
const TWO_ROWS = [
  "<tr><th>Periodos</th><th>Monto de la renta l&iacute;quida imponible</th><th></th><th>Factor</th><th>Cantidad a rebajar</th><th>Tasa de Impuesto Efectiva, m&aacute;xima por cada tramo de Renta</th></tr>",
  "<tr><th></th><th>Desde</th><th>Hasta</th><th></th><th></th><th></th></tr>",
].join("\n");

/** Three header rows of six cells each (crilam: "las tres filas del <thead> tienen seis celdas"), the lowest numbering the columns in <td> cells. */
const SIX_BY_THREE = [
  "<tr><th>Monto de C&aacute;lculo del Impuesto</th><th></th><th></th><th></th><th></th><th></th></tr>",
  "<tr><th>Per&iacute;odos</th><th>Desde</th><th>Hasta</th><th>Factor</th><th>Cantidad a rebajar</th><th>Tasa de Impuesto Efectiva</th></tr>",
  "<tr><td>(1)</td><td>(2)</td><td>(3)</td><td>(4)</td><td>(5)</td><td>(6)</td></tr>",
].join("\n");

describe("second-category tax page by label", () => {
  const august = async (page: string) => (await segundaCategoriaMonth(serving(page), 2025, 8))?.month;
  const reference = () => august(fixture("impuesto2025.htm"));

  it("reads the fixture's three header rows (a title, the labels, Desde and Hasta under the renta's label)", async () => {
    expect(
      fixture("impuesto2025.htm")
        .match(/<thead>[\s\S]*?<\/thead>/)?.[0]
        .match(/<tr>/g),
    ).toHaveLength(3);
    expect((await reference())?.mensual).toHaveLength(8);
  });

  it("reads the same brackets under two header rows", async () => {
    expect(await august(taxHeader(fixture("impuesto2025.htm"), TWO_ROWS))).toEqual(await reference());
  });

  it("reads the same brackets under three rows of six cells whose lowest numbers the columns", async () => {
    expect(await august(taxHeader(fixture("impuesto2025.htm"), SIX_BY_THREE))).toEqual(await reference());
  });

  it("reads the same brackets with the factor and deduction columns swapped and a header renamed", async () => {
    const page = editRows(taxHeader(fixture("impuesto2025.htm"), TWO_ROWS), (cells) => swap(cells, 3, 4)).replace(
      "<th>Cantidad a rebajar</th>",
      "<th>Rebaja</th>",
    );
    expect(page).toContain("<th>Rebaja</th><th>Factor</th>");
    expect(await august(page)).toEqual(await reference());
  });

  it("reads the same brackets from a page without mes_ sections, by its month heading", async () => {
    const headed = fixture("impuesto2025.htm").replace("<div id='mes_agosto'>", "<div>");
    expect(headed).not.toMatch(/<div id='mes_/i);
    expect(await august(headed)).toEqual(await reference());
  });

  it.each([
    ["the Factor header missing", (p: string) => p.replace(">Factor<", ">Coeficiente<"), /factor not found/],
    [
      "the Factor label spread over the deduction's column",
      (p: string) => p.replace("<th>Factor</th><th>Cantidad a rebajar</th>", "<th colspan='2'>Factor</th>"),
      /factor found twice/,
    ],
    [
      "a lower header row naming another column under Factor",
      (p: string) => taxHeader(p, SIX_BY_THREE.replace("<td>(4)</td>", "<td>Cantidad a rebajar</td>")),
      /factor, rebaja read from one column/,
    ],
    ["brackets that are not contiguous", (p: string) => p.replace("$ 926.734,51", "$ 936.734,51"), /not contiguous/],
    ["a factor above 1", (p: string) => p.replace("<td>0,04</td>", "<td>4</td>"), /factor 4/],
  ])("refuses %s with SII_FORMAT_CHANGED", async (_, edit, check) => {
    const err = await failure(segundaCategoriaMonth(serving(edit(fixture("impuesto2025.htm"))), 2025, 8));
    expect([err.status, err.code]).toEqual([502, "SII_FORMAT_CHANGED"]);
    expect(String(details(err).check)).toMatch(check);
  });
});

describe("monetary correction page by label", () => {
  it("reads the same matrix with January's and February's columns swapped and a month abbreviated", async () => {
    const page = editRows(fixture("correccion2025.htm"), (cells) => swap(cells, 1, 2)).replace("<TH>Marzo", "<TH>MAR");
    expect(page).toContain("<TH>Febrero<TH>Enero");
    expect(await correccionYear(serving(page), 2025)).toEqual(await correccionYear(serving(fixture("correccion2025.htm")), 2025));
  });

  it.each([
    [
      "no header naming the months (read by position before)",
      (p: string) => p.replace(/<TR><TH>&nbsp;<TH>Enero.*\n/, ""),
      /enero, febrero.*not found/,
    ],
    [
      "a figure before its own month",
      (p: string) => p.replace("<TR><TD>Febrero<TD><TD>", "<TR><TD>Febrero<TD><TD>0,1"),
      /not after its own month/,
    ],
    ["a month's row missing", (p: string) => p.replace(/<TR><TD>Marzo.*\n/, ""), /MARZO has no figure/],
  ])("refuses %s with SII_FORMAT_CHANGED", async (_, edit, check) => {
    const err = await failure(correccionYear(serving(edit(fixture("correccion2025.htm"))), 2025));
    expect([err.status, err.code]).toEqual([502, "SII_FORMAT_CHANGED"]);
    expect(String(details(err).check)).toMatch(check);
  });
});

describe("indicators through the API", () => {
  /** The gateway over the sandbox SII, its indicator pages passed through `edit`. */
  async function setup(edit: (page: string) => string) {
    const at = new Date("2026-03-20T12:00:00Z");
    const t = probeApp();
    t.deps.clock = { now: () => at };
    // Pinned tidy: these tests tell a changed page from a cut one, and a rough page without
    // `</html>` is what the gateway reads as cut short (src/sii/indicadores.ts readYearPage).
    const sandbox = sandboxTransport(createDefaultSandbox({ now: () => at.getTime(), roughSeed: null }));
    const transport: SiiTransport = {
      ...sandbox,
      fetch: async (request, options) => {
        const answer = await sandbox.fetch(request, options);
        if (!request.url.includes("/valores_y_fechas/") || answer.status !== 200) return answer;
        const page = edit(decodeLatin1(new Uint8Array(await answer.arrayBuffer())));
        return new Response(encodeLatin1(page), { status: 200, headers: answer.headers });
      },
    };
    t.deps.sii = transport;
    const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
    return (path: string) => t.app.request(path, { headers: { "x-api-token": token.secret } });
  }

  it.each([
    ["UF", "/api/v1/sii/indicadores/uf/anual/2025/03/15", (p: string) => p.replace(/<td>[\d.,]+<\/td>/, "")],
    ["tax", "/api/v1/sii/indicadores/impuesto_segunda_categoria/anual/2025/3", (p: string) => p.replaceAll(">Factor<", ">Otro<")],
    ["correction", "/api/v1/sii/indicadores/correccion_monetaria/anual/2024", (p: string) => p.replace(/<tr><th>&nbsp;.*\n/, "")],
  ])("answers 502 SII_FORMAT_CHANGED for the %s page with a header (UF: a cell) missing", async (_, path, edit) => {
    const get = await setup(edit);
    const res = await get(path);
    const body = await errorOf(res);
    expect([res.status, body.error_code, body.details?.service]).toEqual([502, "SII_FORMAT_CHANGED", "indicadores"]);
  });

  it("serves the UF's days without a header row, each day's row first under its month's heading, as the public readers find them", async () => {
    let page = "";
    const get = await setup((p) => {
      page = p;
      return p;
    });
    expect((await get("/api/v1/sii/indicadores/uf/anual/2025/03/15")).status).toBe(200);
    expect(page).not.toMatch(/D&iacute;a|Valor/);
    expect(page).toMatch(/<h2>Marzo<\/h2><div class='table-responsive'><table[^>]*><tbody>\n<tr><th><strong>1<\/strong><\/th><td>/);
  });

  it("serves the tax table under the three header rows of the public source", async () => {
    let page = "";
    const get = await setup((p) => {
      page = p;
      return p;
    });
    expect((await get("/api/v1/sii/indicadores/impuesto_segunda_categoria/anual/2025/3")).status).toBe(200);
    const thead = /<thead>[\s\S]*?<\/thead>/.exec(page)?.[0] ?? "";
    expect(thead.match(/<tr>/g)).toHaveLength(3);
    expect(thead).toContain("<th>Per&iacute;odos</th><th colspan='2'>Monto de la renta l&iacute;quida imponible</th>");
  });

  it("reads the tax month asked for from its own section: a changed August is 502, a whole March of the same page is answered", async () => {
    /** The page with August's section (only) given another Factor label. */
    const changedAugust = (p: string) =>
      p.replace(/<div id='mes_agosto'>[\s\S]*?<\/div>/, (section) => section.replace(">Factor<", ">Otro<"));
    const get = await setup(changedAugust);
    const august = await get("/api/v1/sii/indicadores/impuesto_segunda_categoria/anual/2025/8");
    expect([august.status, (await errorOf(august)).error_code]).toEqual([502, "SII_FORMAT_CHANGED"]);
    expect((await get("/api/v1/sii/indicadores/impuesto_segunda_categoria/anual/2025/3")).status).toBe(200);
  });

  it("answers the sandbox's pages unedited, and a page without </html> when its tables are whole", async () => {
    const get = await setup((p) => p.replace(/<\/html>\s*$/i, ""));
    expect((await get("/api/v1/sii/indicadores/uf/anual/2025/03/15")).status).toBe(200);
    expect((await get("/api/v1/sii/indicadores/impuesto_segunda_categoria/anual/2025/3")).status).toBe(200);
    expect((await get("/api/v1/sii/indicadores/correccion_monetaria/anual/2024")).status).toBe(200);
  });
});
