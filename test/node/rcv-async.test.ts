// The RCV's asynchronous download end to end against the sandbox: request, poll, documents.
import { describe, expect, it } from "vitest";
import { FileEnvelope, JobEnvelope } from "../../src/routes/rcv/schema.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { ASYNC_STEP_MS, rcvDocuments } from "../../src/sandbox/rcv.ts";
import { sandboxTransport, simulatorOf } from "../../src/sandbox/transport.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const company = { auth: { pass: { rut: "76192083-9", clave: "sandbox76" } } };

async function setup() {
  const clock = { at: new Date("2026-11-22T15:00:00Z") };
  const t = probeApp();
  t.deps.clock = { now: () => clock.at };
  t.deps.sii = sandboxTransport(createDefaultSandbox({ now: () => clock.at.getTime() }));
  const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
  const post = (path: string, body: unknown = company) => postJson(t.app, token.secret, path, body);
  const later = (ms: number) => {
    clock.at = new Date(clock.at.getTime() + ms);
  };
  return { ...t, post, later, sandbox: simulatorOf(t.deps.sii) };
}

describe("RCV asynchronous download", () => {
  it("requests, follows CREADO → EN PROCESO → TERMINADO, and returns every document of the file", async () => {
    const { post, later } = await setup();
    const requested = await post("/api/v1/sii/rcv/compras/async/solicitar/76192083-9/202405/33/REGISTRO");
    expect([requested.status, requested.headers.get("x-quota-units")]).toEqual([200, "1"]);
    const job = (await answerOf(requested, JobEnvelope)).data;
    expect(job).toMatchObject({ estado: "CREADO", tipo_documento: 33 });
    const state = (path: string) => post(`/api/v1/sii/rcv/compras/async/${path}/76192083-9/202405/${job.solicitud_id}/33/REGISTRO`);

    const early = await state("detalle");
    expect([early.status, (await errorOf(early)).details?.estado]).toEqual([400, "CREADO"]);
    later(ASYNC_STEP_MS);
    expect((await answerOf(await state("estado"), JobEnvelope)).data.estado).toBe("EN PROCESO");
    later(ASYNC_STEP_MS);
    const done = (await answerOf(await state("estado"), JobEnvelope)).data;
    const expected = rcvDocuments("76192083-9", 202405, "COMPRA").filter((d) => d.estado === "REGISTRO" && d.tipo === 33);
    expect(done).toMatchObject({ estado: "TERMINADO", registros: expected.length });

    const file = await state("detalle");
    expect([file.status, file.headers.get("x-quota-units")]).toEqual([200, "2"]);
    const { data } = await answerOf(file, FileEnvelope);
    expect(data.registros).toBe(data.documentos.length);
    expect(data.documentos.map((d) => d.folio)).toEqual(expected.map((d) => d.folio));
    expect(data.documentos[0]).toMatchObject({
      tipo_documento: 33,
      rut: expected[0]?.rut,
      monto_total: expected[0]?.total,
      estado: "REGISTRO",
    });
  });

  it("works for sales too, and answers 404 for an unknown request", async () => {
    const { post, later } = await setup();
    const job = (await answerOf(await post("/api/v1/sii/rcv/ventas/async/solicitar/76192083-9/202401/61"), JobEnvelope)).data;
    later(3 * ASYNC_STEP_MS);
    const { data } = await answerOf(
      await post(`/api/v1/sii/rcv/ventas/async/detalle/76192083-9/202401/${job.solicitud_id}/61`),
      FileEnvelope,
    );
    expect(data.registros).toBe(rcvDocuments("76192083-9", 202401, "VENTA").filter((d) => d.tipo === 61).length);
    expect(data.documentos.every((d) => d.nota_credito)).toBe(true);
    const unknown = await post("/api/v1/sii/rcv/ventas/async/estado/76192083-9/202401/123/61");
    expect([unknown.status, (await errorOf(unknown)).error_code]).toEqual([404, "HTTP_404"]);
  });

  it("validates the request id and the period before the SII", async () => {
    const { post, sandbox } = await setup();
    const bad = await post("/api/v1/sii/rcv/ventas/async/estado/76192083-9/202401/0/61");
    expect([bad.status, (await errorOf(bad)).errors?.[0]?.path]).toEqual([400, "solicitud_id"]);
    expect((await post("/api/v1/sii/rcv/compras/async/solicitar/76192083-9/201701/33/REGISTRO")).status).toBe(400);
    expect(sandbox.state.calls.size).toBe(0);
  });
});
