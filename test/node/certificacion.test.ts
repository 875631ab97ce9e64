// The software-certification process through the gateway against the sandbox's certification
// environment: apply, get the test set (text and cases), send its documents, and watch the set
// move from undeclared through EN REVISION to REVISADO CONFORME; the boleta set from the SII's
// GWT-RPC application.
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import { bytesToBase64 } from "../../src/lib/encoding.ts";
import { Data } from "../../src/routes/certificacion/contribuyentes-datos.ts";
import { Progress } from "../../src/routes/certificacion/postulacion-avance.ts";
import { TestSets } from "../../src/routes/certificacion/schema.ts";
import { Sent } from "../../src/routes/envios/enviar.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { ENVIO_STEP_MS } from "../../src/sandbox/envios.ts";
import { folioBook } from "../../src/sandbox/folios.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { answerOf, declaredAnswer, errorOf, valueAt } from "../support/answers.ts";
import { postJson, probeApp, sandboxClock, tokenFor } from "../support/app.ts";
import { signedEnvelope } from "../support/envelope.ts";

const COMPANY = "76192083-9";
const juanaCert = { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem };
const pedroCert = { "pfx-data": SANDBOX_TAXPAYER_CERTS["22222222-2"].legacyPfxBase64, passphrase: "sandbox" };
const op = (path: string, rut = COMPANY, query = "") => `/api/v1/sii/certificacion/${path}/${rut}${query}`;

async function setup() {
  const t = probeApp();
  const later = sandboxClock(t.deps);
  const token = await tokenFor(t.deps, { scopes: ["sii:read", "sii:write"] });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postJson(t.app, token.secret, path, body, headers);
  return { ...t, post, later, sandbox: simulatorOf(t.deps.sii) };
}
const answer = async (res: Response) => [res.status, (await errorOf(res)).error_code];
const apply = { auth: { cert: juanaCert }, email: "certificacion@sandbox.example", software: "Mi ERP" };

// The application form's buttons and the SII's confirmation texts are inferred (src/sii/certificacion.ts).
describe("software certification", { tags: ["inferred-sii-shape"] }, () => {
  it("applies, gets the invoices test set parsed into cases, and reads the company's data", async () => {
    const { app, post } = await setup();
    const res = await post(op("facturas/postular"), apply);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-quota-units")).toBe("5");
    // The application declares its answer inline: read against the schema its route registers.
    const applied = declaredAnswer(app, "post", "/api/v1/sii/certificacion/facturas/postular/{contribuyente}");
    expect(valueAt(await answerOf(res, applied), "data")).toMatchObject({
      contribuyente: COMPANY,
      postulado: true,
      glosa: expect.stringMatching(/INGRESADA/),
    });
    expect(await answer(await post(op("facturas/postular"), apply))).toEqual([409, "ALREADY_SUBMITTED"]);

    const { data } = await answerOf(await post(op("facturas/solicitar_set"), { auth: { cert: juanaCert } }), TestSets);
    expect(data.texto).toMatch(/SET BASICO - NUMERO DE ATENCION/);
    expect(data.sets.map((s) => [s.nombre, s.casos.length])).toEqual([
      ["SET BASICO", 6],
      ["SET LIBRO DE VENTAS", 0],
      ["SET LIBRO DE COMPRAS", 0],
    ]);
    const [c1, c2, c3, c4, c5, c6] = data.sets[0]!.casos;
    const n = data.sets[0]!.numero_atencion;
    expect(c1).toMatchObject({
      caso: `${n}-1`,
      tipo: 33,
      items: [{ nombre: "Tornillo AFECTO", cantidad: 120, precio_unitario: 350, exento: false }, { cantidad: 40 }],
    });
    expect(c2?.items[0]).toMatchObject({ precio_unitario: 41990, descuento_porcentaje: 5 });
    expect(c3).toMatchObject({
      descuento_global_porcentaje: 4,
      items: [{ exento: false }, { nombre: "ASESORIA SERVICIO EXENTO", exento: true }],
    });
    expect(c4).toMatchObject({
      tipo: 61,
      referencia: { tipo: 33, caso: `${n}-1` },
      razon_referencia: "CORRIGE GIRO DEL RECEPTOR",
      items: [],
    });
    expect(c5).toMatchObject({ tipo: 61, items: [{ nombre: "Taladro AFECTO", cantidad: 2, precio_unitario: null }] });
    expect(c6).toMatchObject({ tipo: 56, referencia: { tipo: 61, caso: `${n}-4` } });
    expect(data.sets[1]?.texto).toMatch(/CONSTRUYA EL LIBRO DE VENTAS/);

    const datos = (await answerOf(await post(op("contribuyentes/datos"), { auth: { cert: juanaCert } }), Data)).data;
    expect(datos).toMatchObject({
      rut: COMPANY,
      resolucion: { numero: 0, fecha: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) },
      emails: { contacto_sii: "certificacion@sandbox.example" },
      software: "Mi ERP",
      estado: "EN CERTIFICACION",
    });
  });

  it("moves the basic set to REVISADO CONFORME once an envelope with all its cases is processed", async () => {
    const { post, later, sandbox } = await setup();
    await post(op("facturas/postular"), apply);
    const set = (await answerOf(await post(op("facturas/solicitar_set"), { auth: { cert: juanaCert } }), TestSets)).data.sets[0]!;
    const avance = async () => (await answerOf(await post(op("postulacion/avance"), { auth: { cert: juanaCert } }), Progress)).data.sets;
    expect((await avance())[0]).toMatchObject({
      set: "SET BASICO",
      estado: "SIN DECLARAR",
      numero_atencion: set.numero_atencion,
      track_id: null,
    });

    // Folios of each type stamped in the certification environment.
    for (const tipo of [56, 61])
      folioBook(sandbox.state, "1", COMPANY, tipo).ranges.push({ desde: 1, hasta: 50, fecha: "2026-11-01", mandatario: "11111111-1" });
    const juana = await parseCertificateCredential(juanaCert, new Date());
    // Every case of the basic set names its document type (the schema allows a case without one).
    expect(set.casos.filter((caso) => caso.tipo === null)).toEqual([]);
    const documents = set.casos.map((caso, i) => ({
      tipo: caso.tipo ?? 0,
      folio: 20 + i,
      receptor: "60803000-K",
      total: 1000,
      razonRef: `CASO ${caso.caso}`,
    }));
    const xml = await signedEnvelope(juana, COMPANY, documents);
    const sent = await post("/api/v1/platform/dte/envios/enviar?ambiente=1", { auth: { cert: juanaCert }, xml: bytesToBase64(xml) });
    expect(sent.status).toBe(200);
    expect((await avance())[0]).toMatchObject({ estado: "EN REVISION", track_id: (await answerOf(sent, Sent)).data.track_id });
    later(4 * ENVIO_STEP_MS + 100);
    const done = await avance();
    expect(done[0]).toMatchObject({ estado: "REVISADO CONFORME" });
    expect(done[1]).toMatchObject({ set: "LIBRO DE VENTAS", estado: "SIN DECLARAR" });
  });

  it("rejects the set with the SII's reason when one of its documents is rejected", async () => {
    const { post, later } = await setup();
    await post(op("facturas/postular"), apply);
    const set = (await answerOf(await post(op("facturas/solicitar_set"), { auth: { cert: juanaCert } }), TestSets)).data.sets[0]!;
    const juana = await parseCertificateCredential(juanaCert, new Date());
    // Folio 5 of type 33 was already used: the SII rejects that document, and with it the set.
    const documents = set.casos.map((caso, i) => ({
      tipo: 33,
      folio: i === 0 ? 5 : 30 + i,
      receptor: "60803000-K",
      total: 1000,
      razonRef: `CASO ${caso.caso}`,
    }));
    await post("/api/v1/platform/dte/envios/enviar?ambiente=1", {
      auth: { cert: juanaCert },
      xml: bytesToBase64(await signedEnvelope(juana, COMPANY, documents)),
    });
    later(4 * ENVIO_STEP_MS + 100);
    const [basico] = (await answerOf(await post(op("postulacion/avance"), { auth: { cert: juanaCert } }), Progress)).data.sets;
    expect(basico).toMatchObject({ estado: "RECHAZADO", observaciones: expect.stringMatching(/33 5: DTE-3-101/) });
  });

  it("gets the boleta set over HTTP from the SII's boleta certification application, live as in the sandbox", async () => {
    const { post, deps } = await setup();
    await post(op("facturas/postular"), apply);
    const { data } = await answerOf(
      await post(op("boletas/solicitar_set"), { auth: { cert: juanaCert }, email: "proveedor@sandbox.example" }),
      TestSets,
    );
    expect(data.sets[0]?.casos.map((c) => [c.caso, c.tipo])).toEqual([
      ["1", 39],
      ["2", 39],
      ["3", 39],
    ]);
    expect(data.sets[0]?.casos[2]?.items[1]).toMatchObject({ nombre: "item exento 2", exento: true });

    // Against the real SII the same calls are made: no 501.
    const live = { ...deps, sii: Object.assign(Object.create(deps.sii), { mode: "live" as const }) };
    const app = createApp(() => live);
    const token = await tokenFor(live, { scopes: ["sii:write"] });
    const res = await postJson(app, token.secret, op("boletas/solicitar_set"), { auth: { cert: juanaCert } });
    expect(res.status).toBe(200);
    expect((await answerOf(res, TestSets)).data.sets[0]?.casos).toHaveLength(3);
  });

  it("logs in again when the SII forgot the session between the application and the boleta set", async () => {
    const { post, sandbox } = await setup();
    await post(op("facturas/postular"), apply);
    sandbox.state.sessions.clear();
    const res = await post(op("boletas/solicitar_set"), { auth: { cert: juanaCert } });
    expect(res.status).toBe(200);
    expect((await answerOf(res, TestSets)).data.sets[0]?.casos).toHaveLength(3);
  });

  it("applies with the document types asked for, and gives no boleta set to a company that applied for invoices only", async () => {
    const { post } = await setup();
    expect((await post(op("facturas/postular"), { ...apply, documentos: [33, 56, 61] })).status).toBe(200);
    const res = await post(op("boletas/solicitar_set"), { auth: { cert: juanaCert } });
    expect([res.status, (await errorOf(res)).message]).toEqual([404, expect.stringMatching(/not in the process/)]);
    expect(await answer(await post(op("facturas/postular"), { ...apply, documentos: [33, 99] }))).toEqual([422, "VALIDATION_ERROR"]);
  });

  it("answers 404 for a company not in the process, 403 for a certificate without power over it", async () => {
    const { post } = await setup();
    expect(await answer(await post(op("facturas/solicitar_set"), { auth: { cert: juanaCert } }))).toEqual([404, "HTTP_404"]);
    expect(await answer(await post(op("postulacion/avance"), { auth: { cert: juanaCert } }))).toEqual([404, "HTTP_404"]);
    expect(await answer(await post(op("boletas/solicitar_set"), { auth: { cert: juanaCert } }))).toEqual([404, "HTTP_404"]);
    expect(await answer(await post(op("postulacion/avance"), { auth: { cert: pedroCert } }))).toEqual([403, "AUTH_ERROR"]);
  });

  it("validates the body and the RUT, previews with dry_run at no cost, and needs the right scope", async () => {
    const { post, app, deps, sandbox } = await setup();
    const bad = await errorOf(await post(op("facturas/postular"), { ...apply, email: "no" }));
    expect([bad.error_code, bad.errors?.[0]?.path]).toEqual(["VALIDATION_ERROR", "email"]);
    expect(await answer(await post(op("postulacion/avance", "76192083-0"), { auth: { cert: juanaCert } }))).toEqual([
      400,
      "VALIDATION_ERROR",
    ]);
    const preview = await post(op("facturas/postular", COMPANY, "?dry_run=true"), apply);
    expect([preview.status, preview.headers.get("x-quota-units")]).toEqual([200, "0"]);
    expect(sandbox.state.certifications.size).toBe(0);
    const reader = await tokenFor(deps, { scopes: ["sii:read"] });
    expect(await answer(await postJson(app, reader.secret, op("facturas/postular"), apply))).toEqual([403, "INSUFFICIENT_SCOPE"]);
    expect((await app.request(op("postulacion/avance"), { method: "POST", body: "{}" })).status).toBe(401);
  });
});
