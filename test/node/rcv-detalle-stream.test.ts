// The synchronous RCV detail of a large period streams: rows reach the client while the SII is
// still sending, the SII's own rows come from a second read, and a failure once the answer has
// begun aborts it instead of closing a JSON that would look whole.
import { describe, expect, it } from "vitest";
import type { SiiTransport } from "../../src/ports/transport.ts";
import { Detail } from "../../src/routes/rcv/schema.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { rcvDocuments } from "../../src/sandbox/rcv.ts";
import { sandboxTransport, simulatorOf } from "../../src/sandbox/transport.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const company = { auth: { pass: { rut: "76192083-9", clave: "sandbox76" } } };
/** 10 k sales documents, about 4 k of type 33: far more than the gateway holds before answering. */
const LARGE = "/api/v1/sii/rcv/ventas/detalle/76192083-9/201902/33";
const expected = () => rcvDocuments("76192083-9", 201902, "VENTA").filter((d) => d.tipo === 33);

/**
 * The sandbox behind a valve: each detail answer is sent in 4 KiB pieces, and the first one stops
 * halfway until the test opens the valve. `rewrite` may change a detail answer before it is sent.
 */
function valvedSii(rewrite: (text: string, call: number) => string = (text) => text, service = /getDetalleVenta$/) {
  // Tidy: these tests count the logins and the reads exactly, and a rough early expiry adds one.
  const sandbox = sandboxTransport(createDefaultSandbox({ roughSeed: null }));
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const sent = { bytes: 0, total: 0, calls: 0 };
  const transport: SiiTransport = {
    ...sandbox,
    fetch: async (request, options) => {
      const res = await sandbox.fetch(request, options);
      if (!service.test(new URL(request.url).pathname)) return res;
      const call = ++sent.calls;
      const bytes = new TextEncoder().encode(rewrite(await res.text(), call));
      if (call === 1) sent.total = bytes.length;
      let at = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (call === 1 && at >= bytes.length / 2) await opened;
          const piece = bytes.subarray(at, at + 4 * 1024);
          at += piece.length;
          if (call === 1) sent.bytes = at;
          if (piece.length) controller.enqueue(piece);
          else controller.close();
        },
      });
      return new Response(body, { status: res.status, headers: res.headers });
    },
  };
  return { transport, open, sent, state: simulatorOf(sandbox).state };
}

async function setup(sii: SiiTransport, siiTimeoutMs?: number) {
  const t = probeApp(undefined, siiTimeoutMs ? { siiTimeoutMs } : {});
  t.deps.clock = { now: () => new Date("2026-11-22T15:00:00Z") };
  t.deps.sii = sii;
  const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
  return { post: (path: string) => postJson(t.app, token.secret, path, company) };
}

/** Reads the answer until `enough` holds for the text so far. */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, enough: (text: string) => boolean): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  while (!enough(text)) {
    const next = await reader.read();
    if (next.done) break;
    text += decoder.decode(next.value, { stream: true });
  }
  return text;
}

describe("RCV detail of a large period", () => {
  it("sends the first documents while the SII is still sending, then the whole answer", async () => {
    const sii = valvedSii();
    const { post } = await setup(sii.transport);
    const res = await post(LARGE);
    expect([res.status, res.headers.get("content-type")]).toEqual([200, "application/json; charset=utf-8"]);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const want = expected();
    // The first 1 000 documents arrive while the SII's answer is stopped halfway.
    const early = await readUntil(reader, (text) => (text.match(/"folio":/g) ?? []).length >= 1000);
    expect(early).toContain(`"folio":${want[999]?.folio}`);
    expect(sii.sent.bytes).toBeLessThan(sii.sent.total);
    sii.open();
    const rest = await readUntil(reader, () => false);
    const { data } = await answerOf(new Response(early + rest), Detail);
    expect(data.registros).toBe(want.length);
    expect(data.documentos.map((d) => d.folio)).toEqual(want.map((d) => d.folio));
    expect(data.documentos[0]).toMatchObject({ rut: want[0]?.rut, monto_total: want[0]?.total, estado: "REGISTRO" });
    // The SII's own rows, kept as documented, came from a second read of the same documents.
    expect(data.sii.data.map((r) => r.detNroDoc)).toEqual(want.map((d) => d.folio));
    expect(sii.sent.calls).toBe(2);
  });

  it("streams the SII's CSV export too, with the SII's file name, in ISO-8859-1", async () => {
    const sii = valvedSii(undefined, /getDetalleVentaExport$/);
    const { post } = await setup(sii.transport);
    // 100 k documents, about 40 k invoices (4 MiB of lines): half of it is far more than the gateway holds before answering.
    const res = await post("/api/v1/sii/rcv/ventas/detalle/76192083-9/201903/33?formato=csv");
    expect([res.status, res.headers.get("content-type")]).toEqual([200, "text/csv; charset=ISO-8859-1"]);
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="RCV_VENTA_REGISTRO_76192083-9_201903.csv"');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const want = rcvDocuments("76192083-9", 201903, "VENTA").filter((d) => d.tipo === 33);
    const latin1 = new TextDecoder("latin1");
    let text = "";
    // The first 1 000 lines arrive while the SII's answer is stopped halfway.
    while (text.split("\n").length <= 1001) {
      const next = await reader.read();
      if (next.done) break;
      text += latin1.decode(next.value, { stream: true });
    }
    expect(sii.sent.bytes).toBeLessThan(sii.sent.total);
    sii.open();
    for (let next = await reader.read(); !next.done; next = await reader.read()) text += latin1.decode(next.value, { stream: true });
    // The header, then a line per document plus one per extra tax (with an empty Nro).
    const lines = text
      .trimEnd()
      .split("\n")
      .slice(1)
      .filter((line) => !line.startsWith(";"));
    expect(lines).toHaveLength(want.length);
    expect(lines.map((line) => Number(line.split(";")[5]))).toEqual(want.map((d) => d.folio));
  });

  it("aborts the answer when the second read brings other documents than the first", async () => {
    // The second read lacks the last document, as if the register changed in between.
    const sii = valvedSii((text, call) => (call === 2 ? text.replace(/,\{[^{}]*\}\],"esDocPapel"/, '],"esDocPapel"') : text));
    sii.open();
    const { post } = await setup(sii.transport);
    const res = await post(LARGE);
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow(/changed while it was read twice/);
  });

  it("logs in again once when the SII dropped the session before the answer began", async () => {
    const sii = valvedSii();
    sii.open();
    const { post } = await setup(sii.transport);
    expect((await post("/api/v1/sii/rcv/ventas/detalle/76192083-9/202401/33")).status).toBe(200);
    sii.state.sessions.clear();
    const { data } = await answerOf(await post(LARGE), Detail);
    expect(data.registros).toBe(expected().length);
    expect(data.sii.data).toHaveLength(expected().length);
    expect(sii.state.calls.get("clave_login")).toBe(2);
  });

  it("aborts the answer, without logging in again, when the session is dropped after it began", async () => {
    const sii = valvedSii();
    const { post } = await setup(sii.transport);
    const res = await post(LARGE);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await readUntil(reader, (text) => (text.match(/"folio":/g) ?? []).length >= 1000);
    // The second read (for `sii.data`) now meets the login wall.
    sii.state.sessions.clear();
    sii.open();
    await expect(readUntil(reader, () => false)).rejects.toThrow();
    expect(sii.state.calls.get("clave_login")).toBe(1);
  });

  it("streams every type of a large purchases period (dte 0) in one state, the SII's rows included", async () => {
    const { post } = await setup(sandboxTransport(createDefaultSandbox()));
    const res = await post("/api/v1/sii/rcv/compras/detalle/76192083-9/201902/0/PENDIENTE");
    const { data } = await answerOf(res, Detail);
    const docs = rcvDocuments("76192083-9", 201902, "COMPRA").filter((d) => d.estado === "PENDIENTE");
    const byType = [...new Set(docs.map((d) => d.tipo))].sort((a, b) => a - b).flatMap((tipo) => docs.filter((d) => d.tipo === tipo));
    expect(data.registros).toBe(docs.length);
    expect(data.documentos.map((d) => [d.tipo_documento, d.folio])).toEqual(byType.map((d) => [d.tipo, d.folio]));
    expect(data.sii.data.map((r) => r.detNroDoc)).toEqual(byType.map((d) => d.folio));
    expect(data.documentos.filter((d) => d.nota_credito).length).toBe(docs.filter((d) => d.tipo === 61).length);
    expect(data.sin_detalle).toEqual([]);
  });

  it("answers 502 (timeout) when the SII stops sending midway, before anything was sent", async () => {
    const stalled = valvedSii(); // never opened: the answer stops halfway
    const { post } = await setup(stalled.transport, 300);
    const res = await post("/api/v1/sii/rcv/ventas/detalle/76192083-9/202401/33");
    const body = await errorOf(res);
    expect([res.status, body.error_code, body.details?.reason]).toEqual([502, "SII_GATEWAY_ERROR", "timeout"]);
    expect(stalled.sent.bytes).toBeLessThan(stalled.sent.total);
    expect(stalled.sent.calls).toBe(1); // a stalled answer is not mistaken for a session wall
  });

  it("answers a small period from one read, whole, and an SII error in it as an error envelope", async () => {
    const small = valvedSii();
    small.open();
    const { post } = await setup(small.transport);
    const ok = await answerOf(await post("/api/v1/sii/rcv/ventas/detalle/76192083-9/202401/33"), Detail);
    expect(ok.data.sii.data).toHaveLength(ok.data.registros);
    expect(small.sent.calls).toBe(1);

    const failing = valvedSii((text) => text.replace('"codRespuesta":0', '"codRespuesta":2'));
    failing.open();
    const res = await (await setup(failing.transport)).post("/api/v1/sii/rcv/ventas/detalle/76192083-9/202401/33");
    const body = await errorOf(res);
    expect([res.status, body.error_code, body.details?.sii_code]).toEqual([502, "SII_GATEWAY_ERROR", 2]);
  });
});
