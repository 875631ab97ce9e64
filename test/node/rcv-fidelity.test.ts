// The RCV as independent public clients see the SII, through the gateway: the async file's URL,
// continuation lines of the CSV, the mixed list of download requests, the synchronous detail's
// ceiling and the purchase type change. The SII's answers come from the sandbox or, where a shape
// needs the SII's own data, from the fixtures in test/fixtures/sii/rcv (sources in its README).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { SiiTransport } from "../../src/ports/transport.ts";
import { Detail, FileEnvelope, JobEnvelope } from "../../src/routes/rcv/schema.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { rcvDocuments } from "../../src/sandbox/rcv.ts";
import { sandboxTransport, simulatorOf } from "../../src/sandbox/transport.ts";
import { answerOf, declaredAnswer, errorOf, valueAt } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const company = { auth: { pass: { rut: "76192083-9", clave: "sandbox76" } } };
const fixture = (name: string) => readFileSync(join(import.meta.dirname, "..", "fixtures", "sii", "rcv", name));

interface Sent {
  url: string;
  /** A facade request's JSON body, as the SII's facade services take it. */
  body: { metaData?: Record<string, unknown>; data?: unknown } | null;
}

/** The sandbox, with every request recorded and the answers of some paths replaced. */
function recordingSii(replace: Record<string, (request: Request) => Response | Promise<Response>> = {}) {
  const sandbox = sandboxTransport(createDefaultSandbox());
  const sent: Sent[] = [];
  const transport: SiiTransport = {
    ...sandbox,
    fetch: async (request, options) => {
      const text = request.method === "POST" ? await request.clone().text() : "";
      let body: Sent["body"] = null;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {}
      sent.push({ url: request.url, body });
      const path = new URL(request.url).pathname;
      const own = Object.entries(replace).find(([suffix]) => path.includes(suffix))?.[1];
      return own ? own(request) : sandbox.fetch(request, options);
    },
  };
  const to = (suffix: string) => sent.filter((s) => new URL(s.url).pathname.includes(suffix));
  return { transport, sent, to, state: simulatorOf(sandbox).state };
}

async function setup(sii: SiiTransport) {
  const t = probeApp();
  t.deps.clock = { now: () => new Date("2026-11-22T15:00:00Z") };
  t.deps.sii = sii;
  const token = await tokenFor(t.deps, { scopes: ["sii:read", "sii:write"] });
  const post = (path: string, body: unknown = company) => postJson(t.app, token.secret, path, body);
  // The days' detail declares its answer inline: read against the schema its route registers.
  const days = declaredAnswer(t.app, "post", "/api/v1/sii/rcv/ventas/get_detalle_resumen/{emisor}/{periodo}");
  /** The receipts (type 39) of the days' detail of `path`. */
  const receipts = async (path: string) => {
    const resumenes = valueAt(await answerOf(await post(path), days), "data", "resumenes");
    return (Array.isArray(resumenes) ? resumenes : []).find((r) => valueAt(r, "tipo_documento") === 39);
  };
  return { post, receipts };
}

const json = (value: unknown) => new Response(JSON.stringify(value), { headers: { "content-type": "application/json;charset=utf-8" } });

/** The SII's list of download requests (fixture), with `change` applied to request 700's row. */
function controls(change: Record<string, unknown> = {}) {
  const answer = JSON.parse(fixture("getCtrlAsync.json").toString("utf8"));
  answer.data = answer.data.map((row: { caId: number }) => (row.caId === 700 ? { ...row, ...change } : row));
  return () => json(answer);
}

/** The finished file of request 700: the SII's CSV with continuation lines, gzipped, in ISO-8859-1. */
const file = () =>
  new Response(gzipSync(fixture("RCV-venta-extra-empty-impuestos-rows.csv")), { headers: { "content-type": "application/octet-stream" } });

const ASYNC = "/api/v1/sii/rcv/ventas/async";

describe("RCV asynchronous file", () => {
  it("is asked for with both RUTs without check digit (user, then company)", async () => {
    const sii = recordingSii({ getCtrlAsync: controls(), obtenerArchivoBLOB: file });
    const { post } = await setup(sii.transport);
    expect((await post(`${ASYNC}/detalle/76192083-9/202509/700/0`)).status).toBe(200);
    const [asked] = sii.to("obtenerArchivoBLOB");
    expect(new URL(asked?.url ?? "").pathname).toBe(
      "/consdcvinternetui/services/data/facadeService/obtenerArchivoBLOB/uuid-1/76192083/76192083/700",
    );
  });

  it("joins continuation lines (empty Nro) to their document as other taxes, and counts documents", async () => {
    const sii = recordingSii({ getCtrlAsync: controls(), obtenerArchivoBLOB: file });
    const { post } = await setup(sii.transport);
    const res = await post(`${ASYNC}/detalle/76192083-9/202509/700/0`);
    const { data } = await answerOf(res, FileEnvelope);
    // 7 lines, 5 documents: the first and the last have a second tax on a line of its own.
    expect(data.registros).toBe(5);
    expect(data.documentos.map((d) => d.folio)).toEqual([6541, 9874, 3210, 3210, 3210]);
    expect(data.documentos[0]).toMatchObject({
      tipo_documento: 33,
      rut: "54213736-3",
      razon_social: "CHILE SPA",
      monto_neto: 7217280,
      monto_total: 9565862,
      otros_impuestos: [
        { codigo: 27, valor: 275904, tasa: 10 },
        { codigo: 271, valor: 701395, tasa: 18 },
      ],
    });
    expect(data.documentos[4]?.otros_impuestos).toEqual([
      { codigo: 24, valor: 6049210, tasa: 31.5 },
      { codigo: 271, valor: 701395, tasa: 18 },
    ]);
    expect(data.documentos.some((d) => d.monto_total === 0)).toBe(false);
  });

  it("answers 502 when the file's documents are not what its request declared (caNumLineas)", async () => {
    // The request declares 7: the file's lines, not its 5 documents.
    const sii = recordingSii({ getCtrlAsync: controls({ caNumLineas: 7 }), obtenerArchivoBLOB: file });
    const { post } = await setup(sii.transport);
    const res = await post(`${ASYNC}/detalle/76192083-9/202509/700/0`);
    const body = await errorOf(res);
    expect([res.status, body.error_code]).toEqual([502, "SII_GATEWAY_ERROR"]);
    expect(body.message).toMatch(/holds 5 documents but its download request 700 declared 7/);
    expect(body.details).toMatchObject({ documentos: 5, declarados: 7 });
  });

  it("counts documents in the sandbox's files too, whose extra taxes take lines of their own", async () => {
    const clock = { at: new Date("2026-11-22T15:00:00Z") };
    const t = probeApp();
    t.deps.clock = { now: () => clock.at };
    t.deps.sii = sandboxTransport(createDefaultSandbox({ now: () => clock.at.getTime() }));
    const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
    const post = (path: string) => postJson(t.app, token.secret, path, company);
    const job = (await answerOf(await post("/api/v1/sii/rcv/compras/async/solicitar/76192083-9/201901/0/REGISTRO"), JobEnvelope)).data;
    clock.at = new Date(clock.at.getTime() + 5_000);
    const { data } = await answerOf(
      await post(`/api/v1/sii/rcv/compras/async/detalle/76192083-9/201901/${job.solicitud_id}/0/REGISTRO`),
      FileEnvelope,
    );
    const expected = rcvDocuments("76192083-9", 201901, "COMPRA").filter((d) => d.estado === "REGISTRO");
    expect(data.registros).toBe(expected.length);
    expect(data.documentos.map((d) => d.folio)).toEqual(expected.map((d) => d.folio));
    const taxed = data.documentos.filter((d) => d.otros_impuestos?.length === 2);
    expect(taxed.length).toBeGreaterThan(0);
    expect(taxed.every((d) => d.folio % 9 === 0)).toBe(true);
  });
});

describe("RCV download requests (getCtrlAsync)", () => {
  it("sends the portal's fields and keeps only the requests of this period, side and type", async () => {
    const sii = recordingSii({ getCtrlAsync: controls() });
    const { post } = await setup(sii.transport);
    // Newer requests of another period (900), of purchases (950) and of type 61 (960) are in the list.
    const requested = await answerOf(await post(`${ASYNC}/solicitar/76192083-9/202509/0`), JobEnvelope);
    expect(requested.data).toMatchObject({ solicitud_id: 700, estado: "TERMINADO", registros: 5 });
    expect(sii.to("getCtrlAsync")[0]?.body?.data).toEqual({
      rutEmisor: "76192083",
      dvEmisor: "9",
      ptributario: "202509",
      codTipoDoc: "0",
      generaCtrl: true,
      operacion: "VENTA",
      estadoContab: "REGISTRO",
      totDoc: 0,
      accionRecaptcha: "",
      tokenRecaptcha: "",
    });
    // A request of another period or side is not this query's: 404, not its state.
    for (const other of [900, 950]) {
      const res = await post(`${ASYNC}/estado/76192083-9/202509/${other}/0`);
      expect([other, res.status]).toEqual([other, 404]);
    }
    expect((await answerOf(await post(`${ASYNC}/estado/76192083-9/202509/500/0`), JobEnvelope)).data.estado).toBe("EN PROCESO");
  });

  it("lists every request of the taxpayer in the sandbox, and the gateway still finds its own", async () => {
    const sii = recordingSii();
    const { post } = await setup(sii.transport);
    const sales = (await answerOf(await post(`${ASYNC}/solicitar/76192083-9/202401/33`), JobEnvelope)).data;
    // A newer request of the same type, for purchases of another period.
    await post("/api/v1/sii/rcv/compras/async/solicitar/76192083-9/202405/33/REGISTRO");
    const again = (await answerOf(await post(`${ASYNC}/estado/76192083-9/202401/${sales.solicitud_id}/33`), JobEnvelope)).data;
    expect(again.solicitud_id).toBe(sales.solicitud_id);
    const listed = sii.to("getCtrlAsync");
    expect(listed).toHaveLength(3);
  });
});

describe("RCV synchronous detail past its ceiling", () => {
  const empty = () => json(JSON.parse(fixture("getDetalleVenta-past-ceiling.json").toString("utf8")));

  it("is a 502 pointing to the asynchronous download when the summary counts documents, not an empty period", async () => {
    const sii = recordingSii({ getDetalleVenta: empty });
    const { post } = await setup(sii.transport);
    const res = await post("/api/v1/sii/rcv/ventas/detalle/76192083-9/202401/33");
    const body = await errorOf(res);
    expect([res.status, body.error_code]).toEqual([502, "SII_GATEWAY_ERROR"]);
    expect(body.message).toContain("POST /api/v1/sii/rcv/ventas/async/solicitar/76192083-9/202401/33");
    const counted = rcvDocuments("76192083-9", 202401, "VENTA").filter((d) => d.tipo === 33).length;
    expect(body.details).toMatchObject({ tipo_documento: 33, documentos_resumen: counted });
  });

  it("answers a large period's type that way against the sandbox, whose detail has the ceiling", async () => {
    const { post } = await setup(recordingSii().transport);
    const res = await post("/api/v1/sii/rcv/ventas/detalle/76192083-9/201903/33");
    expect([res.status, (await errorOf(res)).details?.async]).toEqual([502, "/api/v1/sii/rcv/ventas/async/solicitar/76192083-9/201903/33"]);
    // The document lookup does not call a document missing that it could not see.
    const doc = rcvDocuments("76192083-9", 201903, "COMPRA").find((d) => d.tipo === 33 && d.estado === "REGISTRO");
    const lookup = await post(`/api/v1/sii/rcv/compras/detalle/documento/76192083-9/201903/33/${doc?.folio}`);
    expect([lookup.status, (await errorOf(lookup)).details?.async]).toEqual([
      502,
      "/api/v1/sii/rcv/compras/async/solicitar/76192083-9/201903/33/REGISTRO",
    ]);
  });

  it("still answers an empty type as empty when the summary agrees", async () => {
    const { post } = await setup(recordingSii({ getDetalleVenta: empty }).transport);
    const { data } = await answerOf(await post("/api/v1/sii/rcv/ventas/detalle/76192083-9/201710/33"), Detail);
    expect([data.registros, data.documentos]).toEqual([0, []]);
  });
});

describe("RCV purchase type change on the wire", () => {
  it("posts the portal's cambiaTipoCompra with devlas's fields, one document per call", async () => {
    const sii = recordingSii();
    const { post } = await setup(sii.transport);
    const doc = rcvDocuments("76192083-9", 202405, "COMPRA").find((d) => d.tipo === 33);
    const res = await post("/api/v1/sii/rcv/compras/set_tipo_transaccion/76192083-9/202405", {
      ...company,
      documentos: [{ tipo_documento: 33, rut_emisor: doc?.rut, folio: doc?.folio, tipo_transaccion: 4 }],
    });
    expect(res.status).toBe(200);
    const [call] = sii.to("cambiaTipoCompra");
    expect(call?.url).toBe("https://www4.sii.cl/complementoscvui/services/data/facadeServiceCompCompraService/cambiaTipoCompra");
    expect(call?.body?.metaData).toMatchObject({
      namespace: "cl.sii.sdi.lob.diii.dcv.data.api.interfaces.compcompra.FacadeServiceCompCompra/cambiaTipoCompra",
      page: { pageSize: 1, pageIndex: 1 },
    });
    const [rutContraparte, dvContraparte] = (doc?.rut ?? "").split("-");
    expect(call?.body?.data).toEqual({
      rut: "76192083",
      dv: "9",
      operacion: "COMPRA",
      tipoDocumento: "33",
      numeroDocumento: String(doc?.folio),
      periodoTributario: "202405",
      tipoCompra: "4",
      rutContraparte,
      dvContraparte,
    });
  });

  it('takes only data "OK" as the SII\'s confirmation', async () => {
    const refusal = () => json({ data: "ERROR", metaData: {} });
    const { post } = await setup(recordingSii({ cambiaTipoCompra: refusal }).transport);
    const doc = rcvDocuments("76192083-9", 202405, "COMPRA").find((d) => d.tipo === 33);
    const res = await post("/api/v1/sii/rcv/compras/set_tipo_transaccion/76192083-9/202405", {
      ...company,
      documentos: [{ tipo_documento: 33, rut_emisor: doc?.rut, folio: doc?.folio, tipo_transaccion: 4 }],
    });
    const body = await errorOf(res);
    expect([res.status, body.details?.sii_message]).toEqual([502, '"ERROR"']);
  });
});

describe("RCV daily receipts", () => {
  it("reads the days with the public obtieneListaBoletasMes, keeping only day entries", async () => {
    const days = () => json(JSON.parse(fixture("obtieneListaBoletasMes.json").toString("utf8")));
    const sii = recordingSii({ obtieneListaBoletasMes: days });
    const { receipts } = await setup(sii.transport);
    const boletas = await receipts("/api/v1/sii/rcv/ventas/get_detalle_resumen/76192083-9/202401");
    const [call] = sii.to("obtieneListaBoletasMes");
    expect(call?.url).toBe("https://www4.sii.cl/complementoscvui/services/data/facadeServiceBoletasDiarias/obtieneListaBoletasMes");
    expect(call?.body?.metaData?.namespace).toBe(
      "cl.sii.sdi.lob.diii.dcv.data.impl.boletasdiarias.FacadeSettingApplicationService/obtieneListaBoletasMes",
    );
    expect(call?.body?.data).toEqual({ rut: "76192083", dv: "9", periodo: "202401", tipoDocumento: "39" });
    // The summary's receipts (type 39, kept as totals) with the SII's two days; null and text dropped.
    // Only `dia` is read of a day (the one field a public reader names); the entry comes as received.
    const recorded = JSON.parse(fixture("obtieneListaBoletasMes.json").toString("utf8")).data.boletas;
    expect(valueAt(boletas, "dias")).toEqual([
      { dia: 1, sii: recorded[0] },
      { dia: 2, sii: recorded[1] },
    ]);
    expect(Object.keys(Object(valueAt(boletas, "dias", 0)))).toEqual(["dia", "sii"]);
    expect(sii.to("getDetalleResumenVenta")).toHaveLength(0);
  });

  it("answers no guessed per-day fields: a day with other names is given as received, never as zeros", async () => {
    const renamed = { dia: 5, cantidad: 3, total: 9000 };
    const sii = recordingSii({ obtieneListaBoletasMes: () => json({ data: { boletas: [renamed] }, metaData: {} }) });
    const { receipts } = await setup(sii.transport);
    const boletas = await receipts("/api/v1/sii/rcv/ventas/get_detalle_resumen/76192083-9/202401");
    expect(valueAt(boletas, "dias")).toEqual([{ dia: 5, sii: renamed }]);
  });

  it("refuses a day that is not one of the period's, a day listed twice, or days without `dia`, with SII_FORMAT_CHANGED", async () => {
    const answers: Record<string, unknown>[] = [[{ dia: 32 }], [{ dia: 30 }], [{ dia: "primero" }], [{ dia: 1 }, { dia: 1 }]].map(
      (boletas) => ({ boletas }),
    );
    // A renamed `dia`: the month counts receipts, no entry is a day.
    answers.push({ boletas: [{ fecha: 1 }], totalDocumentos: 5 });
    for (const data of answers) {
      const sii = recordingSii({ obtieneListaBoletasMes: () => json({ data, metaData: {} }) });
      const { post } = await setup(sii.transport);
      // February 2024 has 29 days.
      const res = await post("/api/v1/sii/rcv/ventas/get_detalle_resumen/76192083-9/202402");
      const body = await errorOf(res);
      expect([res.status, body.error_code, body.details?.service], JSON.stringify(data)).toEqual([
        502,
        "SII_FORMAT_CHANGED",
        "rcv_boletas",
      ]);
    }
  });

  it("lists a period's generated receipts by day in the sandbox, adding up to the summary", async () => {
    const { receipts: receiptsOf } = await setup(recordingSii().transport);
    const boletas = await receiptsOf("/api/v1/sii/rcv/ventas/get_detalle_resumen/76192083-9/202401");
    const receipts = rcvDocuments("76192083-9", 202401, "VENTA").filter((d) => d.tipo === 39);
    const dias = valueAt(boletas, "dias");
    const sum = (field: string) =>
      (Array.isArray(dias) ? dias : []).reduce((total: number, d) => total + Number(valueAt(d, "sii", field)), 0);
    expect(valueAt(boletas, "documentos")).toBe(receipts.length);
    expect(sum("totalDocumentos")).toBe(receipts.length);
    expect(sum("montoTotal")).toBe(valueAt(boletas, "monto_total"));
  });

  it("sends the daily receipts to the daily receipts' service (write method inferred)", { tags: ["inferred-sii-shape"] }, async () => {
    const sii = recordingSii();
    const { post } = await setup(sii.transport);
    const dia = {
      dia: 3,
      documentos: 2,
      folio_inicial: 10,
      folio_final: 11,
      monto_exento: 0,
      monto_neto: 1000,
      monto_iva: 190,
      monto_total: 1190,
    };
    expect((await post("/api/v1/sii/rcv/ventas/set_boletas_diarias/76192083-9/202402/39", { ...company, dias: [dia] })).status).toBe(200);
    const [call] = sii.to("facadeServiceBoletasDiarias");
    expect(new URL(call?.url ?? "").pathname).toMatch(/^\/complementoscvui\/services\/data\/facadeServiceBoletasDiarias\//);
    expect(call?.body?.data).toMatchObject({ rut: "76192083", dv: "9", periodo: "202402", tipoDocumento: "39" });
  });
});
