// The purchases' non-recoverable VAT: a NO_INCLUIR purchase carries its VAT only in `Monto Iva No
// Recuperable` (code 9 in `Codigo IVA No Rec.`), `Monto IVA Recuperable` left empty, as the SII's own
// file shows (test/fixtures/sii/captured/rcv_export, cordada/lib-cl-sii-python). Every detail shape
// answers it as `monto_iva_no_recuperable`, never as a VAT of 0 with net + VAT short of the total.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { SiiTransport } from "../../src/ports/transport.ts";
import { Detail, FileEnvelope, Summary } from "../../src/routes/rcv/schema.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { rcvDocuments } from "../../src/sandbox/rcv.ts";
import { sandboxTransport } from "../../src/sandbox/transport.ts";
import { csvDocuments } from "../../src/sii/rcv.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const company = { auth: { pass: { rut: "76192083-9", clave: "sandbox76" } } };
const fixtures = join(import.meta.dirname, "..", "fixtures", "sii");
const captured = (name: string) => readFileSync(join(fixtures, "captured", "rcv_export", name), "latin1");
const rcvFixture = (name: string) => readFileSync(join(fixtures, "rcv", name), "latin1");
const json = (value: unknown) => new Response(JSON.stringify(value), { headers: { "content-type": "application/json;charset=utf-8" } });
const noIncluir = captured("RCV-compra-no_incluir-rz_leading_trailing_whitespace.csv");
const linesOf = (csv: string) => csv.split(/\r?\n/).filter((l) => l.trim() !== "");
const withoutColumn = (csv: string, name: string) => {
  const [header = "", ...rest] = linesOf(csv);
  return [header.replace(name, "Otra Columna"), ...rest].join("\n");
};

/** The gateway over the sandbox, some facade methods answered by `replace`. */
async function gateway(replace: Record<string, () => Response> = {}) {
  const sandbox = sandboxTransport(createDefaultSandbox());
  const transport: SiiTransport = {
    ...sandbox,
    fetch: async (request, options) => {
      const own = Object.entries(replace).find(([method]) => new URL(request.url).pathname.includes(method))?.[1];
      return own ? own() : sandbox.fetch(request, options);
    },
  };
  const t = probeApp();
  t.deps.clock = { now: () => new Date("2026-11-22T15:00:00Z") };
  t.deps.sii = transport;
  const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
  return async (path: string) => {
    const res = await postJson(t.app, token.secret, path, company);
    return { status: res.status, res };
  };
}

/** A finished purchases download (caId 950 of the fixture) whose file is `csv`. */
const asyncFile = (csv: string, documents: number) => ({
  getCtrlAsync: () => {
    const ctrl = JSON.parse(rcvFixture("getCtrlAsync.json"));
    for (const row of ctrl.data) if (row.caId === 950) row.caNumLineas = documents;
    return json(ctrl);
  },
  obtenerArchivoBLOB: () => new Response(gzipSync(Buffer.from(csv, "latin1")), { headers: { "content-type": "application/octet-stream" } }),
});
const ASYNC_NO_INCLUIR = "/api/v1/sii/rcv/compras/async/detalle/76192083-9/202509/950/0/NO_INCLUIR";

describe("the non-recoverable VAT in the register's CSV", () => {
  it("the SII's NO_INCLUIR file through the asynchronous detail: 16 663 of non-recoverable VAT, code 9, not a VAT of 0", async () => {
    const { status, res } = await (await gateway(asyncFile(noIncluir, 2)))(ASYNC_NO_INCLUIR);
    expect(status).toBe(200);
    const docs = (await answerOf(res, FileEnvelope)).data.documentos;
    expect(docs.map((d) => [d.folio, d.monto_neto, d.monto_iva, d.monto_iva_no_recuperable, d.codigo_iva_no_recuperable])).toEqual([
      [19000035, 87699, 0, 16663, 9],
      [19000036, 155473, 0, 29540, 9],
    ]);
    for (const d of docs) expect(d.monto_exento + d.monto_neto + d.monto_iva + d.monto_iva_no_recuperable).toBe(d.monto_total);
  });

  it("refuses a purchases file without `Monto Iva No Recuperable` (502 SII_FORMAT_CHANGED naming it), never its VAT as 0", async () => {
    const { status, res } = await (await gateway(asyncFile(withoutColumn(noIncluir, "Monto Iva No Recuperable"), 2)))(ASYNC_NO_INCLUIR);
    const body = await errorOf(res);
    expect([status, body.error_code, body.details?.service]).toEqual([502, "SII_FORMAT_CHANGED", "rcv_blob"]);
    expect(body.details?.check).toContain('"Monto Iva No Recuperable"');
    const read = async (csv: string) => {
      for await (const _ of csvDocuments(linesOf(csv), "NO_INCLUIR", undefined, "COMPRA"));
    };
    await expect(read(withoutColumn(noIncluir, "Codigo IVA No Rec."))).rejects.toMatchObject({
      code: "SII_FORMAT_CHANGED",
      init: { details: { check: expect.stringContaining('"Codigo IVA No Rec"') } },
    });
  });

  it("refuses a purchases CSV export without the column (502 SII_FORMAT_CHANGED), not the file", async () => {
    const lines = linesOf(withoutColumn(noIncluir, "Monto Iva No Recuperable"));
    const call = await gateway({ getDetalleCompraExport: () => json({ data: lines, respEstado: { codRespuesta: 0 } }) });
    const { status, res } = await call("/api/v1/sii/rcv/compras/detalle/76192083-9/202509/33/NO_INCLUIR?formato=csv");
    const body = await errorOf(res);
    expect([status, body.error_code, body.details?.service]).toEqual([502, "SII_FORMAT_CHANGED", "rcv_export"]);
  });

  it("reads a sales file, which has no such column, with 0 and no code; refuses a sales file where purchases were asked", async () => {
    const sales = captured("RCV-venta-rz_leading_trailing_whitespace.csv");
    const docs = [];
    for await (const doc of csvDocuments(linesOf(sales), "REGISTRO", undefined, "VENTA")) docs.push(doc);
    expect(docs.length).toBeGreaterThan(0);
    expect(new Set(docs.map((d) => `${d.monto_iva_no_recuperable}|${d.codigo_iva_no_recuperable}`))).toEqual(new Set(["0|null"]));
    const asPurchases = async () => {
      for await (const _ of csvDocuments(linesOf(sales), "REGISTRO", undefined, "COMPRA"));
    };
    await expect(asPurchases()).rejects.toMatchObject({ code: "SII_FORMAT_CHANGED" });
  });
});

describe("the non-recoverable VAT in the JSON detail", () => {
  it("answers detMntIVANoRec and detMntCodNoRec as monto_iva_no_recuperable and codigo_iva_no_recuperable", async () => {
    const answer = JSON.parse(rcvFixture("getDetalleCompra.json"));
    Object.assign(answer.data[0], { detMntIVA: null, detMntIVANoRec: 184470, detMntCodNoRec: 9 });
    const call = await gateway({ getDetalleCompra: () => json(answer) });
    const { status, res } = await call("/api/v1/sii/rcv/compras/detalle/76192083-9/202509/33/NO_INCLUIR");
    expect(status).toBe(200);
    const [first, second] = (await answerOf(res, Detail)).data.documentos;
    expect([first?.monto_iva, first?.monto_iva_no_recuperable, first?.codigo_iva_no_recuperable]).toEqual([0, 184470, 9]);
    expect([second?.monto_iva_no_recuperable, second?.codigo_iva_no_recuperable]).toEqual([0, null]);
  });
});

describe("the sandbox's NO_INCLUIR purchases", () => {
  const leftIn = (periodo: number) =>
    rcvDocuments("76192083-9", periodo, "COMPRA").filter((d) => d.estado === "NO_INCLUIR" && d.tipo === 33);
  // The first month of 2024 whose register has NO_INCLUIR invoices (the sandbox's documents are generated).
  const periodo = [...Array(12).keys()].map((m) => 202401 + m).find((p) => leftIn(p).length > 0) ?? 0;
  const left = leftIn(periodo);

  it("carry their VAT as non-recoverable, code 9, in the JSON detail, the export and the summary", async () => {
    expect(left.length).toBeGreaterThan(0);
    const call = await gateway();
    const detail = await call(`/api/v1/sii/rcv/compras/detalle/76192083-9/${periodo}/33/NO_INCLUIR`);
    expect(detail.status).toBe(200);
    const expected = left.map((d) => [d.folio, 0, Math.round(d.neto * 0.19), 9]);
    const answered = (await answerOf(detail.res, Detail)).data.documentos.map((d) => [
      d.folio,
      d.monto_iva,
      d.monto_iva_no_recuperable,
      d.codigo_iva_no_recuperable,
    ]);
    expect(answered).toEqual(expected);
    const summary = await call(`/api/v1/sii/rcv/compras/resumen/76192083-9/${periodo}/NO_INCLUIR`);
    const row = (await answerOf(summary.res, Summary)).data.resumen.find((r) => r.tipo_documento === 33);
    expect(row?.monto_iva_no_recuperable).toBe(left.reduce((sum, d) => sum + d.ivaNoRec, 0));
    // The export as the SII's file has it: Tipo Compra "No Corresp. Incluir", Monto IVA Recuperable empty.
    const exported = await call(`/api/v1/sii/rcv/compras/detalle/76192083-9/${periodo}/33/NO_INCLUIR?formato=csv`);
    const [header = "", line = ""] = linesOf(await exported.res.text());
    const cells = header.split(";");
    const at = (name: string) => line.split(";")[cells.indexOf(name)];
    expect([at("Tipo Compra"), at("Monto IVA Recuperable"), at("Monto Iva No Recuperable"), at("Codigo IVA No Rec.")]).toEqual([
      "No Corresp. Incluir",
      "",
      String(left[0]?.ivaNoRec),
      "9",
    ]);
  });
});
