// The indicator pages read by header label and checked: columns in another order or renamed to a known
// synonym read the same numbers; a header missing, or data that breaks what the page promises, is a 502
// SII_FORMAT_CHANGED, never a 200 with other numbers. Pages are the fixtures (reconstructions, see their
// first line) and the sandbox's, edited cell by cell.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeLatin1, encodeLatin1 } from "../../src/lib/latin1.ts";
import type { SiiTransport } from "../../src/ports.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { sandboxTransport } from "../../src/sandbox/transport.ts";
import type { SiiContext } from "../../src/sii/http.ts";
import { correccionYear, segundaCategoriaYear, ufYear } from "../../src/sii/indicadores.ts";
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

describe("UF page by label", () => {
  const reference = () => ufYear(serving(fixture("uf2026.htm")), 2026);

  it("reads the same values with each value before its day and the headers renamed to synonyms", async () => {
    const page = editRows(fixture("uf2026.htm"), (cells) => [1, 0, 3, 2, 5, 4].map((i) => cells[i] ?? ""))
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
    ["the Valor header missing", (p: string) => p.replaceAll(">Valor<", ">Monto<"), /valor not found/],
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

describe("second-category tax page by label", () => {
  const august = async (page: string) => (await segundaCategoriaYear(serving(page), 2025))?.[8];

  it("reads the same brackets with the factor and deduction columns swapped and a header renamed", async () => {
    const page = editRows(fixture("impuesto2025.htm"), (cells) => swap(cells, 3, 4)).replace("Cantidad a rebajar", "Rebaja");
    expect(page).toContain("<th>Rebaja</th><th>Factor</th>");
    expect(await august(page)).toEqual(await august(fixture("impuesto2025.htm")));
  });

  it.each([
    ["the Factor header missing", (p: string) => p.replace(">Factor<", ">Coeficiente<"), /factor not found/],
    ["brackets that are not contiguous", (p: string) => p.replace("$ 926.734,51", "$ 936.734,51"), /not contiguous/],
    ["a factor above 1", (p: string) => p.replace("<td>0,04</td>", "<td>4</td>"), /factor 4/],
  ])("refuses %s with SII_FORMAT_CHANGED", async (_, edit, check) => {
    const err = await failure(segundaCategoriaYear(serving(edit(fixture("impuesto2025.htm"))), 2025));
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
    ["UF", "/api/v1/sii/indicadores/uf/anual/2025/03/15", (p: string) => p.replaceAll(">Valor<", ">Monto<")],
    ["tax", "/api/v1/sii/indicadores/impuesto_segunda_categoria/anual/2025/3", (p: string) => p.replaceAll(">Factor<", ">Otro<")],
    ["correction", "/api/v1/sii/indicadores/correccion_monetaria/anual/2024", (p: string) => p.replace(/<tr><th>&nbsp;.*\n/, "")],
  ])("answers 502 SII_FORMAT_CHANGED for the %s page with a header missing", async (_, path, edit) => {
    const get = await setup(edit);
    const res = await get(path);
    const body = await errorOf(res);
    expect([res.status, body.error_code, body.details?.service]).toEqual([502, "SII_FORMAT_CHANGED", "indicadores"]);
  });

  it("answers the sandbox's pages unedited, and a page without </html> when its tables are whole", async () => {
    const get = await setup((p) => p.replace(/<\/html>\s*$/i, ""));
    expect((await get("/api/v1/sii/indicadores/uf/anual/2025/03/15")).status).toBe(200);
    expect((await get("/api/v1/sii/indicadores/impuesto_segunda_categoria/anual/2025/3")).status).toBe(200);
    expect((await get("/api/v1/sii/indicadores/correccion_monetaria/anual/2024")).status).toBe(200);
  });
});
