// BTE annual summary through the gateway against the sandbox SII.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeLatin1, encodeLatin1 } from "../../src/lib/latin1.ts";
import { Summary } from "../../src/routes/bte/emitidas-resumen.ts";
import { retentionRate, sandboxBte } from "../../src/sandbox/bte.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { sandboxTransport, simulatorOf } from "../../src/sandbox/transport.ts";
import { annualBte } from "../../src/sii/bte.ts";
import { CookieJar } from "../../src/sii/cookies.ts";
import { liveTransport } from "../../src/sii/transport.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";
import { failure } from "../support/sii.ts";

const company = { rut: "76192083-9", clave: "sandbox76" };

async function setup() {
  const t = probeApp();
  const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
  const post = (path: string, body: unknown = { auth: { pass: company } }, secret = token.secret) => postJson(t.app, secret, path, body);
  return { ...t, post, sandbox: simulatorOf(t.deps.sii) };
}

/** What the sandbox's slips add up to, computed independently of its page. */
function expected(year: number) {
  const slips = sandboxBte().filter((s) => s.fecha.startsWith(`${year}-`));
  const months = [...new Set(slips.map((s) => Number(s.fecha.slice(5, 7))))].sort((a, b) => a - b);
  return months.map((mes) => {
    const month = slips.filter((s) => Number(s.fecha.slice(5, 7)) === mes);
    const bruto = month.filter((s) => !s.anulada).reduce((sum, s) => sum + s.bruto, 0);
    const retencion = Math.round(bruto * retentionRate(year));
    return { mes, folios: month.length, anuladas: month.filter((s) => s.anulada).length, bruto, retencion, total: bruto - retencion };
  });
}

// The request (bte_indiv_cons2 with TIPO=anual) is inferred; the page it reads is not (see the next block).
describe("BTE annual summary", { tags: ["inferred-sii-shape"] }, () => {
  it("reads the year's table into one row per active month and the annual totals", async () => {
    const { post } = await setup();
    const res = await post("/api/v1/sii/bte/emitidas/resumen/2025");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-quota-units")).toBe("2");
    const { data } = await answerOf(res, Summary);
    expect(data.anio).toBe(2025);
    expect(data.emisor).toBe("76192083-9");
    expect(data.mensual.length).toBeLessThanOrEqual(12);
    expect(
      data.mensual.map((m) => ({
        mes: m.mes,
        folios: m.folios,
        anuladas: m.anuladas,
        bruto: m.bruto,
        retencion: m.retencion,
        total: m.total,
      })),
    ).toEqual(expected(2025));
    const sum = (key: keyof typeof data.anual) => data.mensual.reduce((total, m) => total + m[key], 0);
    expect(data.anual).toEqual({
      folios: sum("folios"),
      vigentes: sum("vigentes"),
      anuladas: sum("anuladas"),
      bruto: sum("bruto"),
      retencion: sum("retencion"),
      total: sum("total"),
    });
  });

  it("gives an empty table and zero totals for a year without movements", async () => {
    const { post } = await setup();
    const { data, message } = await answerOf(await post("/api/v1/sii/bte/emitidas/resumen/2010"), Summary);
    expect(data.mensual).toEqual([]);
    expect(data.anual).toEqual({ folios: 0, vigentes: 0, anuladas: 0, bruto: 0, retencion: 0, total: 0 });
    expect(message).toContain("No BTEs");
  });

  it("returns the SII's page as html and its table as csv, ISO-8859-1, with the chosen delimiter", async () => {
    const { post } = await setup();
    const html = await post("/api/v1/sii/bte/emitidas/resumen/2026?formato=html");
    expect(html.headers.get("content-type")).toBe("text/html; charset=ISO-8859-1");
    const page = decodeLatin1(new Uint8Array(await html.arrayBuffer()));
    expect(page).toContain("INFORME ANUAL DE BTE's EMITIDAS AÑO 2026");
    const csv = await post("/api/v1/sii/bte/emitidas/resumen/2026?formato=csv&csv_delimiter=|");
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=ISO-8859-1");
    const lines = decodeLatin1(new Uint8Array(await csv.arrayBuffer()))
      .trim()
      .split("\r\n");
    expect(lines[0]).toBe("Mes|Folio Inicial|Folio Final|Vigentes|Nulas|Honorario Bruto|Retenciones|Total Líquido");
    expect(lines.at(-1)).toMatch(/^\*Totales\|/);
    expect(lines).toHaveLength(12 + 2);
  });

  it("refuses years outside 2005-2100 and bad parameters with 400, a missing clave with 422", async () => {
    const { post, sandbox } = await setup();
    for (const path of [
      "/api/v1/sii/bte/emitidas/resumen/2004",
      "/api/v1/sii/bte/emitidas/resumen/2101",
      "/api/v1/sii/bte/emitidas/resumen/20x5",
    ]) {
      const res = await post(path);
      expect(res.status, path).toBe(400);
      expect((await errorOf(res)).errors?.[0]?.path).toBe("anio");
    }
    expect((await post("/api/v1/sii/bte/emitidas/resumen/2025?formato=pdf")).status).toBe(400);
    expect((await post("/api/v1/sii/bte/emitidas/resumen/2025?formato=csv&csv_delimiter=ab")).status).toBe(400);
    expect((await post("/api/v1/sii/bte/emitidas/resumen/2025", { auth: { pass: { rut: "76192083-9" } } })).status).toBe(422);
    expect(sandbox.state.calls.size).toBe(0);
  });

  it("maps a wrong clave to 400 AUTH_ERROR, maintenance to 503, and needs sii:read", async () => {
    const { post, sandbox, deps } = await setup();
    const wrong = await post("/api/v1/sii/bte/emitidas/resumen/2025", { auth: { pass: { ...company, clave: "x" } } });
    expect([wrong.status, (await errorOf(wrong)).error_code]).toEqual([400, "AUTH_ERROR"]);
    sandbox.state.faults.push({ service: "bte_report", fault: "maintenance", remaining: 2 });
    const down = await post("/api/v1/sii/bte/emitidas/resumen/2025");
    expect([down.status, down.headers.get("x-quota-units")]).toEqual([503, "0"]);
    const settingsOnly = await tokenFor(deps, { scopes: ["settings:read"] });
    expect((await post("/api/v1/sii/bte/emitidas/resumen/2025", undefined, settingsOnly.secret)).status).toBe(403);
  });
});

const FIXTURES = join(import.meta.dirname, "..", "fixtures", "sii", "bte");
const fixture = (file: string) => readFileSync(join(FIXTURES, file), "utf8");

/** A live-mode context whose zeus.sii.cl shows the menu and answers the summary with `page`. */
const siiServing = (page: string) => {
  const fetch = async (request: Request) => {
    const html = request.url.endsWith("/bte_indiv_cons2") ? page : "<html><body><form name=formulario></form></body></html>";
    return new Response(encodeLatin1(html), { headers: { "content-type": "text/html" } });
  };
  return { transport: liveTransport(fetch as typeof globalThis.fetch), timeoutMs: 5_000 };
};

/** The fixture's summary table rewritten cell by cell: `edit(cells, rowIndex)` returns the row's new cells. */
function rewritten(page: string, edit: (cells: string[], row: number) => string[]): string {
  let row = 0;
  return page.replace(/<TR>(.*?)<\/TR>/g, (whole, inner: string) => {
    const cells = inner.match(/<T[HD][^>]*>.*?<\/T[HD]>/g) ?? [];
    if (cells.length !== 8) return whole;
    return `<TR>${edit(cells, row++).join("")}</TR>`;
  });
}

const FEBRUARY = { mes: 2, nombre_mes: "FEBRERO", folios: 3, vigentes: 2, anuladas: 1, bruto: 500_000, retencion: 76_250, total: 423_750 };
const YEAR = { folios: 9, vigentes: 8, anuladas: 1, bruto: 2_000_000, retencion: 305_000, total: 1_695_000 };

describe("BTE annual summary page", () => {
  it("reads the eight-column page (first and last folio, valid, void, gross, withheld, net; *Totales)", async () => {
    const summary = await annualBte(siiServing(fixture("resumen-anual-2025.htm")), new CookieJar(), 2025);
    expect(summary.mensual.map((m) => m.mes)).toEqual([1, 2, 3]);
    expect(summary.mensual[1]).toEqual(FEBRUARY);
    expect(summary.anual).toEqual(YEAR);
    expect(summary.cells[0]?.[0]).toBe("Mes");
  });

  it("reads the same numbers with the columns in another order and a header renamed to a synonym", async () => {
    const order = [0, 7, 2, 1, 5, 4, 6, 3];
    const page = rewritten(fixture("resumen-anual-2025.htm"), (cells, row) => {
      const moved = order.map((i) => cells[i] ?? "");
      return row === 0 ? moved.map((c) => c.replace("Nulas", "Boletas Anuladas").replace("Retenciones", "MONTO RETENIDO")) : moved;
    });
    expect(page).toContain("Boletas Anuladas");
    const summary = await annualBte(siiServing(page), new CookieJar(), 2025);
    expect(summary.mensual[1]).toEqual(FEBRUARY);
    expect(summary.anual).toEqual(YEAR);
  });

  it.each([
    [
      "a header missing",
      (cells: string[], row: number) => (row === 0 ? cells.map((c) => c.replace("Honorario Bruto", "Monto X")) : cells),
      /bruto not found/,
    ],
    [
      "a header doubled",
      (cells: string[], row: number) => (row === 0 ? cells.map((c) => c.replace("Folio Final", "Vigentes")) : cells),
      /found twice|not found/,
    ],
    [
      "totals that are not the sum",
      (cells: string[], row: number) => (row === 13 ? cells.map((c, i) => (i === 5 ? "<TD>2.000.001</TD>" : c)) : cells),
      /gross - withheld|totals row/,
    ],
    [
      "gross less withheld that is not net",
      (cells: string[], row: number) => (row === 2 ? cells.map((c, i) => (i === 7 ? "<TD>423.751</TD>" : c)) : cells),
      /gross - withheld != net/,
    ],
    [
      "counts outside the folio range",
      (cells: string[], row: number) => (row === 2 ? cells.map((c, i) => (i === 2 ? "<TD>7</TD>" : c)) : cells),
      /folio range/,
    ],
    [
      "a month twice",
      (cells: string[], row: number) => (row === 2 ? cells.map((c, i) => (i === 0 ? "<TD>ENERO</TD>" : c)) : cells),
      /listed twice/,
    ],
  ])("refuses %s with SII_FORMAT_CHANGED", async (_, edit, check) => {
    const page = rewritten(fixture("resumen-anual-2025.htm"), edit);
    const err = await failure(annualBte(siiServing(page), new CookieJar(), 2025));
    expect([err.status, err.code, err.init.details?.service]).toEqual([502, "SII_FORMAT_CHANGED", "bte_report"]);
    expect(String(err.init.details?.check)).toMatch(check);
  });

  it("refuses the old seven-column layout instead of reading other numbers from it", async () => {
    const err = await failure(annualBte(siiServing(fixture("resumen-anual-2025-7col.htm")), new CookieJar(), 2025));
    expect([err.status, err.code]).toEqual([502, "SII_FORMAT_CHANGED"]);
  });

  it("answers 502 SII_FORMAT_CHANGED through the API when the SII's page lacks a column, never a 200", async () => {
    const t = probeApp();
    const sandbox = sandboxTransport(createDefaultSandbox());
    t.deps.sii = {
      ...sandbox,
      fetch: async (request, options) => {
        const answer = await sandbox.fetch(request, options);
        if (!request.url.endsWith("/bte_indiv_cons2")) return answer;
        const page = decodeLatin1(new Uint8Array(await answer.arrayBuffer())).replace("Retenciones", "Otra cosa");
        return new Response(encodeLatin1(page), { status: answer.status, headers: answer.headers });
      },
    };
    const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
    const res = await postJson(t.app, token.secret, "/api/v1/sii/bte/emitidas/resumen/2025", { auth: { pass: company } });
    const body = await errorOf(res);
    expect([res.status, body.error_code, body.details?.service]).toEqual([502, "SII_FORMAT_CHANGED", "bte_report"]);
    expect(body.details?.check).toContain("retencion not found");
    expect(body.details?.check).toContain('"Otra cosa"');
  });
});
