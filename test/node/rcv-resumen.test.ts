// RCV summaries through the gateway against the sandbox's RCV facade.
import { describe, expect, it } from "vitest";
import { Summary } from "../../src/routes/rcv/schema.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { rcvDocuments } from "../../src/sandbox/rcv.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { answerOf, errorOf, valueAt } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const company = { auth: { pass: { rut: "76192083-9", clave: "sandbox76" } } };
const juanaCert = {
  auth: { cert: { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem } },
};

async function setup() {
  const t = probeApp();
  t.deps.clock = { now: () => new Date("2026-11-22T15:00:00Z") };
  const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
  const post = (path: string, body: unknown) => postJson(t.app, token.secret, path, body);
  return { ...t, post, sandbox: simulatorOf(t.deps.sii) };
}

describe("RCV summaries", () => {
  it("sums the period's purchases per document type, keeping the SII's answer", async () => {
    const { post } = await setup();
    const res = await post("/api/v1/sii/rcv/compras/resumen/76192083-9/202405/REGISTRO", company);
    expect([res.status, res.headers.get("x-quota-units")]).toEqual([200, "2"]);
    const { data } = await answerOf(res, Summary);
    const docs = rcvDocuments("76192083-9", 202405, "COMPRA").filter((d) => d.estado === "REGISTRO");
    expect(data.total_documentos).toBe(docs.length);
    for (const row of data.resumen) {
      const of = docs.filter((d) => d.tipo === row.tipo_documento);
      expect(row.documentos).toBe(of.length);
      expect(row.monto_total).toBe(of.reduce((s, d) => s + d.total, 0));
      expect(row.nota_credito).toBe(row.tipo_documento === 61);
    }
    expect(valueAt(data.sii, "respEstado", "codRespuesta")).toBe(0);
    expect(valueAt(data.sii, "data", 0, "rsmnTipoDocInteger")).toBe(data.resumen[0]!.tipo_documento);
  });

  it("reads the sales summary with a representative's certificate", async () => {
    const { post } = await setup();
    const { data } = await answerOf(await post("/api/v1/sii/rcv/ventas/resumen/76192083-9/202401", juanaCert), Summary);
    expect(data.operacion).toBe("VENTA");
    expect(data.total_documentos).toBe(rcvDocuments("76192083-9", 202401, "VENTA").length);
  });

  it("answers an empty success for a period without documents (codRespuesta 3)", async () => {
    const { post } = await setup();
    const res = await post("/api/v1/sii/rcv/ventas/resumen/76192083-9/201706", company);
    expect(res.status).toBe(200);
    const body = await answerOf(res, Summary);
    expect([body.data.total_documentos, body.data.resumen, valueAt(body.data.sii, "respEstado", "codRespuesta")]).toEqual([0, [], 3]);
  });

  it("refuses periods outside 201705..now, bad states and formats by name, before the SII", async () => {
    const { post, sandbox } = await setup();
    for (const [path, field] of [
      ["/api/v1/sii/rcv/compras/resumen/76192083-9/201704/REGISTRO", "periodo"],
      ["/api/v1/sii/rcv/compras/resumen/76192083-9/202612/REGISTRO", "periodo"],
      ["/api/v1/sii/rcv/compras/resumen/76192083-9/20241/REGISTRO", "periodo"],
      ["/api/v1/sii/rcv/compras/resumen/76192083-9/202401/ACEPTADO", "estado"],
      ["/api/v1/sii/rcv/ventas/resumen/76192083-8/202401", "emisor"],
    ] as const) {
      const res = await post(path, company);
      expect(res.status, path).toBe(400);
      expect(
        (await errorOf(res)).errors?.map((e) => e.path),
        path,
      ).toEqual([field]);
    }
    expect(sandbox.state.calls.size).toBe(0);
  });

  it("answers 403 for a clave of another taxpayer and 422 for both credentials or none", async () => {
    const { post } = await setup();
    const other = await post("/api/v1/sii/rcv/ventas/resumen/76192083-9/202401", {
      auth: { pass: { rut: "22222222-2", clave: "sandbox22" } },
    });
    expect([other.status, (await errorOf(other)).error_code]).toEqual([403, "AUTH_ERROR"]);
    expect((await post("/api/v1/sii/rcv/ventas/resumen/76192083-9/202401", { auth: { ...company.auth, ...juanaCert.auth } })).status).toBe(
      422,
    );
    expect((await post("/api/v1/sii/rcv/ventas/resumen/76192083-9/202401", { auth: {} })).status).toBe(422);
  });

  it("logs in again once when the SII has dropped the session, and maps maintenance to 503", async () => {
    const { post, sandbox } = await setup();
    // Pinned tidy: this test counts logins after the session drop it makes itself; a rough early expiry would add one.
    sandbox.state.rough = null;
    await post("/api/v1/sii/rcv/ventas/resumen/76192083-9/202401", company);
    sandbox.state.sessions.clear();
    expect((await post("/api/v1/sii/rcv/ventas/resumen/76192083-9/202402", company)).status).toBe(200);
    expect(sandbox.state.calls.get("clave_login")).toBe(2);
    sandbox.state.faults.push({ service: "rcv_resumen", fault: "maintenance", remaining: 2 });
    expect((await post("/api/v1/sii/rcv/ventas/resumen/76192083-9/202403", company)).status).toBe(503);
  });
});
