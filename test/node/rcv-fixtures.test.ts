// The RCV readers on the SII's own files and on answers reconstructed from public clients
// (test/fixtures/sii/rcv, sources in its README), through the functions the live path uses.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { controlsOf, csvDocuments, detalleRow, type FacadeAnswer, resumenRows } from "../../src/sii/rcv.ts";

const fixture = (name: string) => readFileSync(join(import.meta.dirname, "..", "fixtures", "sii", "rcv", name), "latin1");
const answer = (name: string) => JSON.parse(fixture(name)) as FacadeAnswer;

/** The file's documents as the async detail reads them (lines as `asyncFileLines` yields them). */
async function documents(name: string, estado = "REGISTRO") {
  const lines = fixture(name)
    .split(/\r?\n/)
    .filter((line) => line.trim() !== "");
  const docs = [];
  for await (const doc of csvDocuments(lines, estado)) docs.push(doc);
  return docs;
}

describe("the SII's CSV files", () => {
  it("a sales file whose other taxes span lines: 7 lines, 5 documents", async () => {
    const docs = await documents("RCV-venta-extra-empty-impuestos-rows.csv");
    expect(docs.map((d) => [d.tipo_documento, d.folio, d.rut])).toEqual([
      [33, 6541, "54213736-3"],
      [33, 9874, "42509414-9"],
      [33, 3210, "68840666-8"],
      [34, 3210, "68840666-8"],
      [33, 3210, "54213736-3"],
    ]);
    expect(docs.map((d) => d.otros_impuestos.map((t) => t.codigo))).toEqual([[27, 271], [24], [24], [24], [24, 271]]);
    expect(docs[0]).toMatchObject({
      fecha: "2025-09-01",
      fecha_recepcion: "2025-09-01T10:09:00",
      monto_iva: 1371283,
      monto_total: 9565862,
    });
  });

  it("sales with several references and continuation lines count one document each", async () => {
    expect((await documents("RCV-venta-multiple-dte-referencias.csv")).map((d) => d.folio)).toEqual([506, 14239, 3210]);
    const validation = await documents("RCV-venta-validation-errors.csv");
    expect(validation).toHaveLength(6);
    expect(validation[0]?.otros_impuestos).toEqual([
      { codigo: 24, valor: 6049210, tasa: 31.5 },
      { codigo: 271, valor: 701395, tasa: 18 },
    ]);
  });

  it("trims names, reads each purchase state's columns, and takes `null` for an empty date", async () => {
    const registro = await documents("RCV-compra-registro-rz_leading_trailing_whitespace.csv");
    expect(registro.map((d) => d.razon_social)).toEqual(["Fake Company S.A.", "Fake Company S.A."]);
    expect(registro[0]).toMatchObject({ folio: 23084, monto_neto: 240169, monto_iva: 45632, monto_total: 285801, fecha: "2019-06-21" });
    const reclamado = await documents("RCV-compra-reclamado-rz_leading_trailing_whitespace.csv", "RECLAMADO");
    expect(reclamado.map((d) => [d.tipo_documento, d.nota_credito, d.estado])).toEqual([
      [33, false, "RECLAMADO"],
      [61, true, "RECLAMADO"],
    ]);
    const pendiente = await documents("RCV-compra-pendiente-rz_leading_trailing_whitespace.csv", "PENDIENTE");
    expect(pendiente.map((d) => [d.folio, d.monto_iva])).toEqual([
      [9800042, 7949],
      [380007, 10338],
    ]);
    const noIncluir = await documents("RCV-compra-no_incluir-rz_leading_trailing_whitespace.csv", "NO_INCLUIR");
    expect(noIncluir.map((d) => d.monto_total)).toEqual([104362, 185013]);
  });

  it("keeps a line with invalid or missing fields as a document (it has a Nro), with what it could read", async () => {
    const docs = await documents("RCV-compra-reclamado.csv", "RECLAMADO");
    expect(docs).toHaveLength(5);
    expect(docs[0]?.otros_impuestos).toEqual([{ codigo: 23, valor: 12000, tasa: 2.967999999 }]);
    expect(docs[2]?.rut).toBe("76354771-K");
    expect(docs[3]).toMatchObject({ folio: 0, monto_total: 0, fecha: "invalid-date", fecha_recepcion: null });
    const missing = await documents("RCV-venta-missing-required-fields.csv");
    expect(missing.map((d) => [d.tipo_documento, d.folio, d.fecha_recepcion])).toEqual([
      [0, 506, null],
      [33, 508, "2019-07-01T13:49:42"],
      [30, 88, "2017-09-13T10:18:59"],
    ]);
  });

  it("refuses a file that starts with a continuation line (it belongs to no document)", async () => {
    const [header = "", , continuation = ""] = fixture("RCV-venta-extra-empty-impuestos-rows.csv").split(/\r?\n/);
    const read = async () => {
      for await (const _ of csvDocuments([header, continuation], "REGISTRO"));
    };
    await expect(read()).rejects.toMatchObject({ status: 502, code: "SII_GATEWAY_ERROR" });
  });
});

describe("the facade's JSON answers", () => {
  it("getResumen: per type, credit notes flagged, totals-only types by their kind", () => {
    const rows = resumenRows(answer("getResumen-venta.json"));
    expect(rows.map((r) => [r.tipo_documento, r.tipo_ingreso, r.documentos, r.nota_credito])).toEqual([
      [33, "DET_ELE", 15, false],
      [61, "DET_ELE", 1, true],
      [39, "RESUMEN", 120, false],
    ]);
    expect(rows[0]).toMatchObject({ monto_neto: 2000000, monto_iva: 380000, monto_total: 2380000 });
  });

  it("getDetalleCompra: the counterpart with its check digit upper-cased, ISO dates", () => {
    const rows = (answer("getDetalleCompra.json").data as Record<string, unknown>[]).map((r) => detalleRow(r, "REGISTRO"));
    expect(rows[0]).toEqual({
      tipo_documento: 33,
      folio: 789456,
      rut: "76354771-K",
      razon_social: "PROVEEDOR SPA",
      fecha: "2019-06-05",
      fecha_recepcion: "2019-06-05T21:58:49",
      monto_exento: 0,
      monto_neto: 970894,
      monto_iva: 184470,
      monto_iva_no_recuperable: 0,
      codigo_iva_no_recuperable: null,
      monto_total: 1155364,
      estado: "REGISTRO",
      nota_credito: false,
    });
    expect(rows[1]?.nota_credito).toBe(true);
  });

  it("getCtrlAsync: only this period's, side's and type's requests, newest first", () => {
    const list = answer("getCtrlAsync.json");
    const q = { rut: "76192083-9", periodo: "202509", tipo: 0, operacion: "VENTA" as const, estado: "REGISTRO" };
    expect(controlsOf(list, q).map((j) => [j.solicitud_id, j.estado, j.registros, j.blob])).toEqual([
      [700, "TERMINADO", 5, "uuid-1"],
      [500, "EN PROCESO", 0, "SIN-BLOB"],
    ]);
    expect(controlsOf(list, { ...q, operacion: "COMPRA" }).map((j) => j.solicitud_id)).toEqual([950]);
    expect(controlsOf(list, { ...q, tipo: 61 }).map((j) => j.solicitud_id)).toEqual([960]);
    expect(controlsOf(list, { ...q, periodo: "202508" }).map((j) => j.solicitud_id)).toEqual([900]);
  });
});
