// The RCV read by label and by key (issue: no 200 with wrong data): the CSV with its columns in
// another order, under other spellings and synonyms, or without one; JSON rows without a required
// key; `dcvEstadoContab: null`; a session with only CSESSIONID; the sandbox's synchronous ceiling.
// The SII's answers are the sandbox's or the fixtures in test/fixtures/sii/rcv (sources in its README).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { SiiTransport } from "../../src/ports/transport.ts";
import { Detail } from "../../src/routes/rcv/schema.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { CEILING_PERIOD, rcvDocuments, SYNC_DETAIL_MAX_DOCUMENTS } from "../../src/sandbox/rcv.ts";
import { sandboxTransport } from "../../src/sandbox/transport.ts";
import { csvDocuments } from "../../src/sii/rcv.ts";
import { answerOf, errorOf, valueAt } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const company = { auth: { pass: { rut: "76192083-9", clave: "sandbox76" } } };
const fixture = (name: string) => readFileSync(join(import.meta.dirname, "..", "fixtures", "sii", "rcv", name), "latin1");
const json = (value: unknown) => new Response(JSON.stringify(value), { headers: { "content-type": "application/json;charset=utf-8" } });

/** The sandbox, with the answers of some paths replaced and every facade request's body kept. */
function sii(replace: Record<string, (request: Request) => Response> = {}, answers: (res: Response) => Response = (r) => r) {
  const sandbox = sandboxTransport(createDefaultSandbox());
  const sent: unknown[] = [];
  const transport: SiiTransport = {
    ...sandbox,
    fetch: async (request, options) => {
      if (request.method === "POST" && request.url.includes("facadeService")) sent.push(await request.clone().json());
      const own = Object.entries(replace).find(([suffix]) => new URL(request.url).pathname.includes(suffix))?.[1];
      return answers(own ? own(request) : await sandbox.fetch(request, options));
    },
  };
  return { transport, sent };
}

async function setup(transport: SiiTransport) {
  const t = probeApp();
  t.deps.clock = { now: () => new Date("2026-11-22T15:00:00Z") };
  t.deps.sii = transport;
  const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
  return (path: string) => postJson(t.app, token.secret, path, company);
}

const documents = async (csv: string, estado = "REGISTRO") => {
  const docs = [];
  for await (const doc of csvDocuments(
    csv.split(/\r?\n/).filter((l) => l.trim() !== ""),
    estado,
  ))
    docs.push(doc);
  return docs;
};

/** The CSV with its columns in the order `order` gives (indexes of the original columns). */
function reorder(csv: string, order: (width: number) => number[]): string {
  const lines = csv.split(/\r?\n/).filter((l) => l.trim() !== "");
  const width = (lines[0] ?? "").split(";").length;
  const at = order(width);
  return lines
    .map((line, i) => {
      const cells = line.split(";");
      const moved = at.map((k) => cells[k] ?? "");
      return i === 0 ? moved.join(";") : `${moved.join(";")};${cells.slice(width).join(";")}`;
    })
    .join("\n");
}

const renameHeader = (csv: string, from: string, to: string) => {
  const [header = "", ...rest] = csv.split(/\r?\n/);
  return [
    header
      .split(";")
      .map((c) => (c === from ? to : c))
      .join(";"),
    ...rest,
  ].join("\n");
};

describe("RCV CSV read by its header's labels", () => {
  const sales = fixture("RCV-venta-extra-empty-impuestos-rows.csv");
  const purchases = fixture("RCV-compra-reclamado.csv");

  it("answers the same documents with the columns reversed and the labels in other case, accents and spacing", async () => {
    const want = await documents(sales);
    let moved = reorder(sales, (w) => [...Array(w).keys()].reverse());
    moved = renameHeader(moved, "Razon Social", "RAZÓN  SOCIAL");
    moved = renameHeader(moved, "Monto Neto", " monto neto ");
    moved = renameHeader(moved, "Fecha Recepcion", "Fecha Recepción");
    expect(await documents(moved)).toEqual(want);
    expect(want.map((d) => d.monto_neto)).toContain(7217280);
  });

  it("takes a known synonym for a renamed column: the sales' VAT and other-tax names in a purchases file", async () => {
    const want = await documents(purchases, "RECLAMADO");
    let renamed = renameHeader(purchases, "Monto IVA Recuperable", "MONTO IVA");
    renamed = renameHeader(renamed, "Codigo Otro Impuesto", "Código Otro Imp.");
    renamed = renameHeader(renamed, "Valor Otro Impuesto", "Valor Otro Imp.");
    expect(await documents(renamed, "RECLAMADO")).toEqual(want);
    expect(want[0]?.otros_impuestos).toEqual([{ codigo: 23, valor: 12000, tasa: 2.967999999 }]);
  });

  it("refuses a file without a column it reads (SII_FORMAT_CHANGED naming it), never a document with 0", async () => {
    const without = renameHeader(sales, "Monto Neto", "Monto Neto Nuevo");
    await expect(documents(without)).rejects.toMatchObject({
      status: 502,
      code: "SII_FORMAT_CHANGED",
      init: { details: { service: "rcv_blob", check: expect.stringContaining('"Monto Neto"') } },
    });
  });

  it("refuses a document given twice and a line shorter than its header", async () => {
    const [header = "", first = ""] = sales.split(/\r?\n/);
    await expect(documents([header, first, first].join("\n"))).rejects.toMatchObject({ code: "SII_FORMAT_CHANGED" });
    const short = first.split(";").slice(0, 20).join(";");
    await expect(documents([header, short].join("\n"))).rejects.toMatchObject({ code: "SII_FORMAT_CHANGED" });
  });

  it("answers 502 SII_FORMAT_CHANGED for an asynchronous file without a column, through the gateway", async () => {
    const ctrl = JSON.parse(fixture("getCtrlAsync.json"));
    const file = renameHeader(sales, "Monto total", "Total");
    const { transport } = sii({
      getCtrlAsync: () => json(ctrl),
      obtenerArchivoBLOB: () =>
        new Response(gzipSync(Buffer.from(file, "latin1")), { headers: { "content-type": "application/octet-stream" } }),
    });
    const res = await (await setup(transport))("/api/v1/sii/rcv/ventas/async/detalle/76192083-9/202509/700/0");
    const body = await errorOf(res);
    expect([res.status, body.error_code, body.details?.service]).toEqual([502, "SII_FORMAT_CHANGED", "rcv_blob"]);
    expect(body.details?.check).toContain('"Monto Total"');
  });

  it("answers 502 SII_FORMAT_CHANGED for a CSV export without a column, not the file", async () => {
    const lines = renameHeader(sales, "Folio", "Numero")
      .split("\n")
      .filter((l) => l.trim() !== "");
    const { transport } = sii({ getDetalleVentaExport: () => json({ data: lines, respEstado: { codRespuesta: 0 } }) });
    const res = await (await setup(transport))("/api/v1/sii/rcv/ventas/detalle/76192083-9/202509/33?formato=csv");
    const body = await errorOf(res);
    expect([res.status, body.error_code, body.details?.service]).toEqual([502, "SII_FORMAT_CHANGED", "rcv_export"]);
  });
});

describe("RCV JSON read by key", () => {
  const detail = () => JSON.parse(fixture("getDetalleCompra.json"));

  it("answers 502 SII_FORMAT_CHANGED for a detail row without detMntTotal, not a total of 0", async () => {
    const answer = detail();
    delete answer.data[1].detMntTotal;
    const { transport } = sii({ getDetalleCompra: () => json(answer) });
    const res = await (await setup(transport))("/api/v1/sii/rcv/compras/detalle/76192083-9/202509/33/REGISTRO");
    const body = await errorOf(res);
    expect([res.status, body.error_code, body.details?.service]).toEqual([502, "SII_FORMAT_CHANGED", "rcv_detalle"]);
    expect(body.details?.check).toContain('"detMntTotal"');
  });

  it("answers 502 SII_FORMAT_CHANGED for a summary row without rsmnTotDoc, or a totDocRes its rows do not make", async () => {
    const summary = () => JSON.parse(fixture("getResumen-venta.json"));
    const without = summary();
    delete without.data[0].rsmnTotDoc;
    const res = await (await setup(sii({ getResumen: () => json(without) }).transport))("/api/v1/sii/rcv/ventas/resumen/76192083-9/202509");
    expect([res.status, (await errorOf(res)).error_code]).toEqual([502, "SII_FORMAT_CHANGED"]);
    const miscounted = { ...summary(), totDocRes: 135 };
    const again = await (await setup(sii({ getResumen: () => json(miscounted) }).transport))(
      "/api/v1/sii/rcv/ventas/resumen/76192083-9/202509",
    );
    expect([again.status, (await errorOf(again)).details?.check]).toEqual([502, "totDocRes is 135 but the rows count 136 documents"]);
  });

  it("answers the state asked for when the SII sends dcvEstadoContab: null, never an empty estado", async () => {
    const answer = detail();
    for (const row of answer.data) row.dcvEstadoContab = null;
    const { transport } = sii({ getDetalleCompra: () => json(answer) });
    const res = await (await setup(transport))("/api/v1/sii/rcv/compras/detalle/76192083-9/202509/33/PENDIENTE");
    const { data } = await answerOf(res, Detail);
    expect(data.documentos.map((d) => d.estado)).toEqual(["PENDIENTE", "PENDIENTE"]);
    // The sandbox sends null as the SII does: the state asked for comes back.
    const own = await (await setup(sii().transport))("/api/v1/sii/rcv/compras/detalle/76192083-9/202509/33/REGISTRO");
    const docs = (await answerOf(own, Detail)).data.documentos;
    expect(docs.length).toBeGreaterThan(0);
    expect(new Set(docs.map((d) => d.estado))).toEqual(new Set(["REGISTRO"]));
  });

  it("answers 502 SII_FORMAT_CHANGED for a finished download request without caNumLineas, not a file of 0 documents", async () => {
    const ctrl = JSON.parse(fixture("getCtrlAsync.json"));
    for (const row of ctrl.data) if (row.caId === 700) delete row.caNumLineas;
    const { transport } = sii({ getCtrlAsync: () => json(ctrl) });
    const res = await (await setup(transport))("/api/v1/sii/rcv/ventas/async/estado/76192083-9/202509/700/0");
    const body = await errorOf(res);
    expect([res.status, body.error_code, body.details?.service]).toEqual([502, "SII_FORMAT_CHANGED", "rcv_async"]);
    expect(body.details?.check).toContain('"caNumLineas"');
  });

  it("answers 502 SII_FORMAT_CHANGED when a type's detail does not add up to its summary row", async () => {
    const { transport } = sii({
      getDetalleCompra: () => json(detail()),
    });
    // dte 0 reads the sandbox's summary, then every type's detail: the fixture's 2 rows are not its counts.
    const res = await (await setup(transport))("/api/v1/sii/rcv/compras/detalle/76192083-9/202509/0/REGISTRO");
    const body = await errorOf(res);
    expect([res.status, body.error_code]).toEqual([502, "SII_FORMAT_CHANGED"]);
    expect(body.details?.check).toMatch(/^type \d+: the detail's documentos is 2 but the summary's \d+$/);
  });
});

describe("RCV session and ceiling", () => {
  it("sends CSESSIONID as conversationId when the SII set no TOKEN", async () => {
    // The SII's Set-Cookie without TOKEN: only CSESSIONID names the session.
    const withoutToken = (res: Response) => {
      const cookies = res.headers.getSetCookie();
      if (!cookies.some((c) => c.startsWith("TOKEN="))) return res;
      const headers = new Headers(res.headers);
      headers.delete("set-cookie");
      for (const c of cookies) if (!c.startsWith("TOKEN=")) headers.append("set-cookie", c);
      return new Response(res.body, { status: res.status, headers });
    };
    const { transport, sent } = sii({ getResumen: () => json(JSON.parse(fixture("getResumen-venta.json"))) }, withoutToken);
    const res = await (await setup(transport))("/api/v1/sii/rcv/ventas/resumen/76192083-9/202509");
    expect(res.status).toBe(200);
    const id = valueAt(sent.at(-1), "metaData", "conversationId");
    expect(typeof id === "string" && id.length > 0).toBe(true);
  });

  it(`the sandbox's synchronous detail answers no rows past ${SYNC_DETAIL_MAX_DOCUMENTS} documents of a type, so the gateway points to the asynchronous download`, async () => {
    const counted = rcvDocuments("76192083-9", CEILING_PERIOD, "VENTA").filter((d) => d.tipo === 33).length;
    expect(counted).toBeGreaterThan(SYNC_DETAIL_MAX_DOCUMENTS);
    const res = await (await setup(sii().transport))(`/api/v1/sii/rcv/ventas/detalle/76192083-9/${CEILING_PERIOD}/33`);
    const answer = await errorOf(res);
    expect([res.status, answer.details?.async]).toEqual([502, `/api/v1/sii/rcv/ventas/async/solicitar/76192083-9/${CEILING_PERIOD}/33`]);
  });
});
