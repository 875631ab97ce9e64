// The RCV writes and the summary detail against the sandbox (the purchase type change is the
// portal's public call; the summaries follow the inferred contract).
import { describe, expect, it } from "vitest";
import { Detail, Summary, Written } from "../../src/routes/rcv/schema.ts";
import { rcvDocuments } from "../../src/sandbox/rcv.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { answerOf, declaredAnswer, errorOf, valueAt } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const GET_DETALLE_RESUMEN = "/api/v1/sii/rcv/ventas/get_detalle_resumen/{emisor}/{periodo}";
const auth = { pass: { rut: "76192083-9", clave: "sandbox76" } };

async function setup(scopes: ("sii:read" | "sii:write")[] = ["sii:read", "sii:write"]) {
  const t = probeApp();
  t.deps.clock = { now: () => new Date("2026-11-22T15:00:00Z") };
  const token = await tokenFor(t.deps, { scopes });
  const post = (path: string, body: unknown) => postJson(t.app, token.secret, path, body);
  // The days' detail declares its answer inline: read against the schema its route registers.
  const daysDetail = async (path: string) => answerOf(await post(path, { auth }), declaredAnswer(t.app, "post", GET_DETALLE_RESUMEN));
  return { ...t, post, daysDetail, sandbox: simulatorOf(t.deps.sii) };
}

const boleta = { tipo_documento: 39, documentos: 120, monto_exento: 0, monto_neto: 840336, monto_iva: 159664, monto_total: 1000000 };

describe("RCV sales summaries (set, read, delete)", { tags: ["inferred-sii-shape"] }, () => {
  it("enters a summary that the sales summary then shows, details it, and deletes it once", async () => {
    const { post, daysDetail, sandbox } = await setup();
    // Pinned tidy: this test counts the SII calls exactly; a rough early session expiry repeats the boleta read.
    sandbox.state.rough = null;
    const set = await post("/api/v1/sii/rcv/ventas/set_resumen/76192083-9/202401", { auth, resumenes: [boleta] });
    expect([set.status, set.headers.get("x-quota-units")]).toEqual([200, "5"]);
    const summary = (await answerOf(await post("/api/v1/sii/rcv/ventas/resumen/76192083-9/202401", { auth }), Summary)).data;
    expect(summary.resumen.find((r) => r.tipo_documento === 39)).toMatchObject({
      tipo_ingreso: "RESUMEN",
      documentos: 120,
      monto_total: 1000000,
    });
    const detail = await daysDetail("/api/v1/sii/rcv/ventas/get_detalle_resumen/76192083-9/202401");
    expect(valueAt(detail, "data", "resumenes")).toEqual([{ ...boleta, dias: [] }]);
    expect((await post("/api/v1/sii/rcv/ventas/delete_resumen/76192083-9/202401", { auth, tipos_documento: [39] })).status).toBe(200);
    const again = await post("/api/v1/sii/rcv/ventas/delete_resumen/76192083-9/202401", { auth, tipos_documento: [39] });
    expect([again.status, (await errorOf(again)).error_code]).toEqual([404, "HTTP_404"]);
    // The detail reads the summary and the days (public reads); the writes are set and two deletes.
    expect([sandbox.state.calls.get("rcv_write"), sandbox.state.calls.get("rcv_boletas")]).toEqual([3, 1]);
  });

  it("validates strictly: types, duplicates, integer amounts, totals, before the SII", async () => {
    const { post, sandbox } = await setup();
    const cases: [unknown, number, string[]][] = [
      [{ auth, resumenes: [{ ...boleta, tipo_documento: 33 }] }, 422, ["resumenes[0].tipo_documento"]],
      [{ auth, resumenes: [boleta, boleta] }, 400, ["resumenes[1].tipo_documento"]],
      [{ auth, resumenes: [{ ...boleta, monto_total: 5 }] }, 400, ["resumenes[0].monto_total"]],
      [{ auth, resumenes: [{ ...boleta, monto_neto: 1.5 }] }, 422, ["resumenes[0].monto_neto"]],
      [{ auth, resumenes: [{ ...boleta, documentos: -1 }] }, 422, ["resumenes[0].documentos"]],
    ];
    for (const [body, status, paths] of cases) {
      const res = await post("/api/v1/sii/rcv/ventas/set_resumen/76192083-9/202401", body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect((await errorOf(res)).errors?.map((e) => e.path)).toEqual(paths);
    }
    expect(sandbox.state.calls.size).toBe(0);
  });

  it("previews with dry_run and needs sii:write", async () => {
    const { post, sandbox } = await setup();
    const preview = await post("/api/v1/sii/rcv/ventas/set_resumen/76192083-9/202401?dry_run=true", { auth, resumenes: [boleta] });
    expect([preview.status, preview.headers.get("x-quota-units")]).toEqual([200, "0"]);
    // The SII's confirmation is what a preview cannot have: it is marked as a placeholder.
    expect(((await preview.json()) as { data: unknown }).data).toEqual({
      rut: "76192083-9",
      periodo: "202401",
      sii: {},
      vista_previa: { provisionales: ["sii"], estimados: [] },
    });
    expect(sandbox.state.calls.size).toBe(0);
    const reader = await setup(["sii:read"]);
    expect((await reader.post("/api/v1/sii/rcv/ventas/set_resumen/76192083-9/202401", { auth, resumenes: [boleta] })).status).toBe(403);
  });
});

describe("RCV daily receipts", { tags: ["inferred-sii-shape"] }, () => {
  it("enters the days of a period and the summary becomes their sum", async () => {
    const { post, daysDetail } = await setup();
    const dia = (d: number, total: number) => ({
      dia: d,
      documentos: 10,
      folio_inicial: d * 100,
      folio_final: d * 100 + 9,
      monto_exento: 0,
      monto_neto: total - Math.round((total * 0.19) / 1.19),
      monto_iva: Math.round((total * 0.19) / 1.19),
      monto_total: total,
    });
    const res = await post("/api/v1/sii/rcv/ventas/set_boletas_diarias/76192083-9/202402/39", {
      auth,
      dias: [dia(1, 11900), dia(2, 23800)],
    });
    expect(res.status).toBe(200);
    const detail = await daysDetail("/api/v1/sii/rcv/ventas/get_detalle_resumen/76192083-9/202402");
    expect(valueAt(detail, "data", "resumenes", 0)).toMatchObject({ tipo_documento: 39, documentos: 20, monto_total: 35700 });
    expect(valueAt(detail, "data", "resumenes", 0, "dias")).toHaveLength(2);
    const bad = await post("/api/v1/sii/rcv/ventas/set_boletas_diarias/76192083-9/202402/39", {
      auth,
      dias: [dia(30, 100), { ...dia(3, 100), folio_final: 1 }],
    });
    expect((await errorOf(bad)).errors?.map((e) => e.path)).toEqual(["dias[0].dia", "dias[1].folio_final"]);
    expect((await post("/api/v1/sii/rcv/ventas/set_boletas_diarias/76192083-9/202402/33", { auth, dias: [dia(1, 100)] })).status).toBe(400);
  });
});

describe("RCV purchases transaction type", () => {
  it("changes it with the portal's call, one document at a time, and the detail then shows it", async () => {
    const { post, sandbox } = await setup();
    const docs = rcvDocuments("76192083-9", 202405, "COMPRA").filter((d) => d.tipo === 33 && d.estado === "REGISTRO");
    const change = (d: (typeof docs)[number]) => ({ tipo_documento: 33, rut_emisor: d.rut, folio: d.folio, tipo_transaccion: 4 });
    const res = await post("/api/v1/sii/rcv/compras/set_tipo_transaccion/76192083-9/202405", {
      auth,
      documentos: [change(docs[0]!), change(docs[1]!)],
    });
    expect([res.status, res.headers.get("x-quota-units")]).toEqual([200, "5"]);
    expect(valueAt((await answerOf(res, Written)).data.sii, "cambios")).toMatchObject([
      { folio: docs[0]?.folio, data: "OK" },
      { folio: docs[1]?.folio, data: "OK" },
    ]);
    expect(sandbox.state.calls.get("rcv_write")).toBe(2);
    const detail = (await answerOf(await post("/api/v1/sii/rcv/compras/detalle/76192083-9/202405/33/REGISTRO", { auth }), Detail)).data;
    const row = detail.sii.data.find((r) => r.detNroDoc === docs[0]?.folio);
    expect([row?.detTipoTransaccion, row?.descTipoTransaccion]).toEqual([4, "Activo Fijo"]);
  });

  it("stops at the first document the SII refuses, quoting it and naming those already changed", async () => {
    const { post } = await setup();
    const doc = rcvDocuments("76192083-9", 202405, "COMPRA").find((d) => d.tipo === 33);
    const change = (folio: number) => ({ tipo_documento: 33, rut_emisor: doc?.rut, folio, tipo_transaccion: 4 });
    const res = await post("/api/v1/sii/rcv/compras/set_tipo_transaccion/76192083-9/202405", {
      auth,
      documentos: [change(doc?.folio ?? 0), change(99_999), change(doc?.folio ?? 0)],
    });
    const body = await errorOf(res);
    expect([res.status, body.error_code]).toEqual([502, "SII_GATEWAY_ERROR"]);
    expect(body.details?.sii_message).toContain("Documento no encontrado");
    expect(body.details).toMatchObject({ documento: 1, cambiados: [{ folio: doc?.folio }] });
  });

  it("refuses a non-recoverable VAT code, which the SII's call cannot carry, before the SII", async () => {
    const { post, sandbox } = await setup();
    const doc = rcvDocuments("76192083-9", 202405, "COMPRA").find((d) => d.tipo === 33);
    const res = await post("/api/v1/sii/rcv/compras/set_tipo_transaccion/76192083-9/202405", {
      auth,
      documentos: [{ tipo_documento: 33, rut_emisor: doc?.rut, folio: doc?.folio, tipo_transaccion: 6, codigo_iva_no_recuperable: 1 }],
    });
    expect([res.status, (await errorOf(res)).errors?.[0]?.path]).toEqual([422, "documentos[0].codigo_iva_no_recuperable"]);
    expect(sandbox.state.calls.size).toBe(0);
  });
});
