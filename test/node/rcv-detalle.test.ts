// RCV details through the gateway against the sandbox's RCV facade.
import { describe, expect, it } from "vitest";
import { Detail } from "../../src/routes/rcv/schema.ts";
import { rcvDocuments } from "../../src/sandbox/rcv.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { answerOf, declaredAnswer, errorOf, valueAt } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const company = { auth: { pass: { rut: "76192083-9", clave: "sandbox76" } } };

async function setup() {
  const t = probeApp();
  t.deps.clock = { now: () => new Date("2026-11-22T15:00:00Z") };
  const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
  const post = (path: string, body: unknown = company) => postJson(t.app, token.secret, path, body);
  return { ...t, post, sandbox: simulatorOf(t.deps.sii) };
}

describe("RCV details", () => {
  it("lists the purchases of one type with plain fields and ISO dates, keeping the SII's rows", async () => {
    const { post } = await setup();
    const res = await post("/api/v1/sii/rcv/compras/detalle/76192083-9/202405/33/REGISTRO");
    expect([res.status, res.headers.get("x-quota-units")]).toEqual([200, "2"]);
    const { data } = await answerOf(res, Detail);
    const expected = rcvDocuments("76192083-9", 202405, "COMPRA").filter((d) => d.estado === "REGISTRO" && d.tipo === 33);
    expect(data.registros).toBe(expected.length);
    expect(data.documentos.map((d) => d.folio)).toEqual(expected.map((d) => d.folio));
    const first = data.documentos[0]!;
    expect(first.rut).toBe(expected[0]?.rut);
    expect(first.fecha).toMatch(/^2024-05-\d{2}$/);
    expect(first.fecha_recepcion).toMatch(/^2024-05-\d{2}T10:15:00$/);
    expect(data.sii.data[0]?.detNroDoc).toBe(first.folio);
  });

  it("with dte 0 reads every type that has detail, and names those kept only as totals", async () => {
    const { post } = await setup();
    const { data } = await answerOf(await post("/api/v1/sii/rcv/ventas/detalle/76192083-9/202401/0"), Detail);
    const all = rcvDocuments("76192083-9", 202401, "VENTA");
    expect(data.registros).toBe(all.filter((d) => d.tipo !== 39).length);
    expect(data.sin_detalle).toEqual(all.some((d) => d.tipo === 39) ? [39] : []);
    expect(data.documentos.some((d) => d.nota_credito)).toBe(all.some((d) => d.tipo === 61));
  });

  it("gives an empty list for a period without documents, and refuses unknown types by name", async () => {
    const { post, sandbox } = await setup();
    const empty = await answerOf(await post("/api/v1/sii/rcv/ventas/detalle/76192083-9/201710/33"), Detail);
    expect([empty.data.registros, empty.data.documentos]).toEqual([0, []]);
    sandbox.state.calls.clear();
    const bad = await post("/api/v1/sii/rcv/ventas/detalle/76192083-9/201710/99");
    expect([bad.status, (await errorOf(bad)).errors?.[0]?.path]).toEqual([400, "dte"]);
    expect(sandbox.state.calls.size).toBe(0);
  });
});

describe("RCV detail as CSV", () => {
  it("returns the SII's export: its columns, its lines (continuation lines included), ISO-8859-1, with its file name", async () => {
    const { post } = await setup();
    const res = await post("/api/v1/sii/rcv/compras/detalle/76192083-9/202405/0/REGISTRO?formato=csv");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=ISO-8859-1");
    expect(res.headers.get("content-disposition")).toContain("RCV_COMPRA_REGISTRO_76192083-9_202405.csv");
    const lines = new TextDecoder("latin1")
      .decode(await res.arrayBuffer())
      .trim()
      .split("\n");
    expect(lines[0]?.startsWith("Nro;Tipo Doc;Tipo Compra;RUT Proveedor;Razon Social;Folio")).toBe(true);
    const expected = rcvDocuments("76192083-9", 202405, "COMPRA").filter((d) => d.estado === "REGISTRO");
    // A document with several other taxes spans several lines; the extra ones have an empty Nro.
    const documents = lines.slice(1).filter((line) => !line.startsWith(";"));
    expect(documents).toHaveLength(expected.length);
    expect(lines.length).toBeGreaterThan(documents.length + 1);
    // Rows end with a `;` the header does not have.
    expect(lines[1]?.split(";")).toHaveLength((lines[0]?.split(";").length ?? 0) + 1);
  });

  it("answers just the columns for a period without documents", async () => {
    const { post } = await setup();
    const res = await post("/api/v1/sii/rcv/ventas/detalle/76192083-9/201710/33?formato=csv");
    expect(res.status).toBe(200);
    const text = new TextDecoder("latin1").decode(await res.arrayBuffer());
    expect(text.split("\n")[0]).toContain("Rut cliente");
  });
});

describe("RCV purchase document by folio", () => {
  it("finds the document whatever its state, and answers 404 for an unknown folio", async () => {
    const { app, post } = await setup();
    const doc =
      rcvDocuments("76192083-9", 202405, "COMPRA").find((d) => d.estado !== "REGISTRO") ?? rcvDocuments("76192083-9", 202405, "COMPRA")[0];
    const res = await post(`/api/v1/sii/rcv/compras/detalle/documento/76192083-9/202405/${doc?.tipo}/${doc?.folio}`);
    expect([res.status, res.headers.get("x-quota-units")]).toEqual([200, "1"]);
    const documento = declaredAnswer(app, "post", "/api/v1/sii/rcv/compras/detalle/documento/{receptor}/{periodo}/{dte}/{folio}");
    expect(valueAt(await answerOf(res, documento), "data", "documentos", 0)).toMatchObject({
      folio: doc?.folio,
      rut: doc?.rut,
      estado: doc?.estado,
    });
    const unknown = await post("/api/v1/sii/rcv/compras/detalle/documento/76192083-9/202405/33/99999");
    expect([unknown.status, (await errorOf(unknown)).error_code]).toEqual([404, "HTTP_404"]);
  });
});
