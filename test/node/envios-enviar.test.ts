// Sending an envelope through the gateway to the sandbox's DTEUpload, then following it to its
// final state and acting on its documents as their receiver.
import { describe, expect, it } from "vitest";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import { bytesToBase64 } from "../../src/lib/encoding.ts";
import { decodeLatin1, encodeLatin1 } from "../../src/lib/latin1.ts";
import { Sent } from "../../src/routes/envios/enviar.ts";
import { Status } from "../../src/routes/envios/estado.ts";
import { Result } from "../../src/routes/intercambios/respuesta-sii.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { ENVIO_STEP_MS } from "../../src/sandbox/envios.ts";
import { folioBook } from "../../src/sandbox/folios.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, sandboxClock, tokenFor } from "../support/app.ts";
import { signedEnvelope, type TestDocument } from "../support/envelope.ts";

const juanaCert = { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem };
const pedroCert = { "pfx-data": SANDBOX_TAXPAYER_CERTS["22222222-2"].legacyPfxBase64, passphrase: "sandbox" };
const COMPANY = "76192083-9";
const ENVIAR = "/api/v1/platform/dte/envios/enviar";
const invoice = (folio: number, receptor = "22222222-2"): TestDocument => ({ tipo: 33, folio, receptor, total: 11_900 });

async function setup(config?: Parameters<typeof probeApp>[1]) {
  const t = probeApp(undefined, config);
  const later = sandboxClock(t.deps);
  const token = await tokenFor(t.deps, { scopes: ["sii:read", "sii:write"] });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postJson(t.app, token.secret, path, body, headers);
  const juana = await parseCertificateCredential(juanaCert, new Date());
  return { ...t, post, juana, later, sandbox: simulatorOf(t.deps.sii) };
}
const send = (xml: Uint8Array, extra: Record<string, unknown> = {}) => ({ auth: { cert: juanaCert }, xml: bytesToBase64(xml), ...extra });
const answer = async (res: Response) => [res.status, (await errorOf(res)).error_code];

describe("sending an envelope (envios/enviar)", () => {
  it("uploads it, gets a track id, and the envelope ends accepted; its receiver can then act on it", async () => {
    const { post, juana, later, sandbox } = await setup();
    const xml = await signedEnvelope(juana, COMPANY, [invoice(11), invoice(12, "60803000-K")]);
    const res = await post(ENVIAR, send(xml), { "idempotency-key": "envio-1" });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-quota-units")).toBe("5");
    const { data } = await answerOf(res, Sent);
    expect(data).toMatchObject({
      estado: "REC",
      emisor: COMPANY,
      archivo: "EnvioDTE_76192083-9_11.xml",
      documentos: [
        { tipo: 33, folio: 11 },
        { tipo: 33, folio: 12 },
      ],
    });
    expect(data.track_id).toMatch(/^\d{10}$/);
    expect(data.fecha_recepcion).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}-0[34]:00$/);
    expect(sandbox.state.calls.get("dte_upload")).toBe(1);

    const estado = `/api/v1/platform/dte/envios/estado/${COMPANY}/${data.track_id}`;
    expect((await answerOf(await post(estado, { auth: { cert: juanaCert } }), Status)).data).toMatchObject({
      estado: "REC",
      resultado: "procesando",
    });
    later(4 * ENVIO_STEP_MS + 100);
    const done = (await answerOf(await post(estado, { auth: { cert: juanaCert } }), Status)).data;
    expect(done).toMatchObject({
      estado: "EPR",
      resultado: "aceptado",
      documentos: [{ tipo: 33, informados: 2, aceptados: 2, rechazados: 0 }],
    });

    // Pedro received folio 11: he can accept it now.
    const respuesta = await post("/api/v1/platform/dte/intercambios/respuesta_sii", {
      auth: { cert: pedroCert },
      documentos: { emisor: COMPANY, dte: 33, folio: 11, accion: "ACD" },
    });
    expect((await answerOf(respuesta, Result)).data.documentos[0]).toMatchObject({ resultado: "registrado", codigo: 0 });
  });

  it("rejects at the SII a document whose folio was never stamped, and a folio sent twice", async () => {
    const { post, juana, later } = await setup();
    const first = await answerOf(await post(ENVIAR, send(await signedEnvelope(juana, COMPANY, [invoice(13), invoice(500)]))), Sent);
    const second = await answerOf(await post(ENVIAR, send(await signedEnvelope(juana, COMPANY, [invoice(13, "60803000-K")]))), Sent);
    later(4 * ENVIO_STEP_MS + 100);
    const estado = (id: string) => post(`/api/v1/platform/dte/envios/estado/${COMPANY}/${id}`, { auth: { cert: juanaCert } });
    expect((await answerOf(await estado(first.data.track_id ?? ""), Status)).data).toMatchObject({
      resultado: "rechazado",
      documentos: [{ tipo: 33, informados: 2, aceptados: 1, rechazados: 1 }],
    });
    expect((await answerOf(await estado(second.data.track_id ?? ""), Status)).data).toMatchObject({ resultado: "rechazado" });
  });

  it("answers 409 ALREADY_SUBMITTED with the earlier track id when the same file is sent again", async () => {
    const { post, juana } = await setup();
    const xml = await signedEnvelope(juana, COMPANY, [invoice(14)]);
    const first = await answerOf(await post(ENVIAR, send(xml)), Sent);
    const again = await post(ENVIAR, send(xml));
    const body = await errorOf(again);
    expect([again.status, body.error_code]).toEqual([409, "ALREADY_SUBMITTED"]);
    // Exactly as first answered: a track id is text, its leading zero included.
    expect(body.details?.track_id).toBe(first.data.track_id);
    expect(first.data.track_id).toMatch(/^0/);
  });

  it("replays an Idempotency-Key without uploading twice", async () => {
    const { post, juana, sandbox } = await setup();
    const xml = await signedEnvelope(juana, COMPANY, [invoice(15)]);
    const first = await answerOf(await post(ENVIAR, send(xml), { "idempotency-key": "k-15" }), Sent);
    const replay = await answerOf(await post(ENVIAR, send(xml), { "idempotency-key": "k-15" }), Sent);
    expect(replay.data).toEqual(first.data);
    expect(sandbox.state.calls.get("dte_upload")).toBe(1);
  });

  it("charges the checks of an envelope past one block as verificar does: 51 documents are 5 + 3 × 2 units, free in dry_run", async () => {
    const { post, juana } = await setup({ maxBodyBytes: 8 * 1024 * 1024 });
    const xml = await signedEnvelope(
      juana,
      COMPANY,
      Array.from({ length: 51 }, (_, i) => invoice(200 + i)),
    );
    const preview = await post(`${ENVIAR}?dry_run=true`, send(xml));
    expect([preview.status, preview.headers.get("x-quota-units")]).toEqual([200, "0"]);
    const res = await post(ENVIAR, send(xml), { "idempotency-key": "envio-51" });
    expect([res.status, res.headers.get("x-quota-units")]).toEqual([200, "11"]);
  });

  it("checks everything in dry_run and stops before the upload, at no cost", async () => {
    const { post, juana, sandbox } = await setup();
    const res = await post(
      `${ENVIAR}?dry_run=true`,
      send(await signedEnvelope(juana, COMPANY, [invoice(16)]), { archivo: "mi_envio.xml" }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("x-quota-units")).toBe("0");
    expect((await answerOf(res, Sent)).data).toMatchObject({
      track_id: null,
      archivo: "mi_envio.xml",
      documentos: [{ tipo: 33, folio: 16 }],
      vista_previa: { provisionales: ["track_id", "estado", "fecha_recepcion"], estimados: [] },
    });
    expect(sandbox.state.calls.get("dte_upload") ?? 0).toBe(0);
    expect(sandbox.state.calls.get("seed") ?? 0).toBe(0);
  });

  it("gets a new token once when the SII answers STATUS 5, and the upload goes through", async () => {
    const { post, juana, sandbox } = await setup();
    await post(`/api/v1/platform/dte/envios/estado/${COMPANY}/0260000001`, { auth: { cert: juanaCert } });
    sandbox.state.forgetTokens();
    const res = await post(ENVIAR, send(await signedEnvelope(juana, COMPANY, [invoice(17)])));
    expect(res.status).toBe(200);
    expect(sandbox.state.calls.get("dte_upload")).toBe(2);
    expect(sandbox.state.calls.get("token")).toBe(2);
  });

  it("never retries the upload when the SII fails, and maps maintenance to 503", async () => {
    const { post, juana, sandbox } = await setup();
    sandbox.state.faults.push({ service: "dte_upload", fault: "http_5xx", remaining: 1 });
    const failed = await post(ENVIAR, send(await signedEnvelope(juana, COMPANY, [invoice(18)])));
    expect(await answer(failed)).toEqual([502, "SII_GATEWAY_ERROR"]);
    expect(sandbox.state.calls.get("dte_upload")).toBe(1);
    sandbox.state.faults.push({ service: "dte_upload", fault: "maintenance", remaining: 1 });
    expect(await answer(await post(ENVIAR, send(await signedEnvelope(juana, COMPANY, [invoice(19)]))))).toEqual([503, "SII_UNAVAILABLE"]);
  });

  it("answers 403 AUTH_ERROR when the sender does not act for the issuer", async () => {
    const { post } = await setup();
    const pedro = await parseCertificateCredential(pedroCert, new Date());
    const res = await post(ENVIAR, { auth: { cert: pedroCert }, xml: bytesToBase64(await signedEnvelope(pedro, COMPANY, [invoice(20)])) });
    const body = await errorOf(res);
    expect([res.status, body.error_code]).toEqual([403, "AUTH_ERROR"]);
    expect(body.details?.sii_status_code).toBe("1");
  });
});

describe("sending boletas (EnvioBOLETA through the boleta service)", () => {
  it("uploads with the boleta service's own token and reports each rejected boleta's reasons", async () => {
    const { post, juana, later, sandbox } = await setup();
    folioBook(sandbox.state, "0", COMPANY, 39).ranges.push({ desde: 1, hasta: 50, fecha: "2026-01-05", mandatario: "11111111-1" });
    const boletas = [1, 2, 99].map((folio) => ({ tipo: 39, folio, receptor: "66666666-6", total: 2_990 }));
    const res = await post(ENVIAR, send(await signedEnvelope(juana, COMPANY, boletas, { kind: "EnvioBOLETA" })));
    expect(res.status).toBe(200);
    const { data } = await answerOf(res, Sent);
    expect(data).toMatchObject({ servicio: "boleta", estado: "REC", archivo: "EnvioBOLETA_76192083-9_1.xml" });
    expect(sandbox.state.calls.get("boleta_upload")).toBe(1);
    expect(sandbox.state.calls.get("boleta_token")).toBe(1);
    expect(sandbox.state.calls.get("token") ?? 0).toBe(0);

    const estado = `/api/v1/platform/dte/envios/estado/${COMPANY}/${data.track_id}?servicio=boleta`;
    later(4 * ENVIO_STEP_MS + 100);
    const status = (await answerOf(await post(estado, { auth: { cert: juanaCert } }), Status)).data;
    expect(status).toMatchObject({
      estado: "EPR",
      resultado: "rechazado",
      documentos: [{ tipo: 39, informados: 3, aceptados: 2, rechazados: 1, reparos: 0 }],
      detalle: [{ tipo: 39, folio: 99, estado: "RCH", errores: [{ seccion: "CAF", codigo: 517 }] }],
    });
    expect(sandbox.state.calls.get("boleta_token")).toBe(1);
  });

  it("asks the right service: a DTE track id is unknown to the boleta service", async () => {
    const { post } = await setup();
    const res = await post(`/api/v1/platform/dte/envios/estado/${COMPANY}/0260000001?servicio=boleta`, { auth: { cert: juanaCert } });
    expect(await answer(res)).toEqual([404, "HTTP_404"]);
    const wrong = await post(`/api/v1/platform/dte/envios/estado/${COMPANY}/0260000001?servicio=sobre`, { auth: { cert: juanaCert } });
    expect(await answer(wrong)).toEqual([400, "VALIDATION_ERROR"]);
  });
});

describe("envelope checks before sending", () => {
  const refusedAt = async (res: Response, path: RegExp) => {
    const body = await errorOf(res);
    expect([res.status, body.error_code]).toEqual([400, "VALIDATION_ERROR"]);
    expect(body.errors?.map((e: { path: string }) => e.path).join(" ")).toMatch(path);
  };

  it("refuses a document changed after signing, naming its signature", async () => {
    const { post, juana, sandbox } = await setup();
    const xml = await signedEnvelope(juana, COMPANY, [invoice(21)], { tamper: (x) => x.replace("<MntTotal>11900<", "<MntTotal>1190<") });
    await refusedAt(await post(ENVIAR, send(xml)), /xml:SetDTE\/DTE\[1\]\/Signature/);
    expect(sandbox.state.calls.get("dte_upload") ?? 0).toBe(0);
  });

  it("refuses a carátula that does not match its documents, or names another sender", async () => {
    const { post, juana } = await setup();
    const counts = await signedEnvelope(juana, COMPANY, [invoice(22)], { subtotales: [{ tipo: 33, cantidad: 2 }] });
    await refusedAt(await post(ENVIAR, send(counts)), /SubTotDTE/);
    const sender = await signedEnvelope(juana, COMPANY, [invoice(23)], { rutEnvia: "22222222-2" });
    await refusedAt(await post(ENVIAR, send(sender)), /RutEnvia/);
  });

  it("refuses what is not a readable ISO-8859-1 envelope", async () => {
    const { post, juana } = await setup();
    await refusedAt(await post(ENVIAR, { auth: { cert: juanaCert }, xml: "not base64!" }), /^xml$/);
    await refusedAt(await post(ENVIAR, send(encodeLatin1("<EnvioDTE><SetDTE>"))), /^xml$/);
    await refusedAt(await post(ENVIAR, send(encodeLatin1('<!DOCTYPE x [<!ENTITY a "b">]><EnvioDTE/>'))), /^xml$/);
    const latin1 = decodeLatin1(await signedEnvelope(juana, COMPANY, [invoice(24)]));
    const utf8 = new TextEncoder().encode(latin1.replace('encoding="ISO-8859-1"', 'encoding="UTF-8"'));
    await refusedAt(await post(ENVIAR, send(utf8)), /xml:<\?xml\?>/);
    const lone = encodeLatin1('<DTE xmlns="http://www.sii.cl/SiiDte" version="1.0"><Documento ID="x"/></DTE>');
    await refusedAt(await post(ENVIAR, send(lone)), /xml:DTE/);
  });

  it("answers 422 for a missing field, 401 and 403 without the right token", async () => {
    const { post, app, deps } = await setup();
    const missing = await post(ENVIAR, { auth: { cert: juanaCert } });
    expect(await answer(missing)).toEqual([422, "VALIDATION_ERROR"]);
    expect(await answer(await app.request(ENVIAR, { method: "POST", body: "{}" }))).toEqual([401, "HTTP_401"]);
    const reader = await tokenFor(deps, { scopes: ["sii:read"] });
    expect(await answer(await postJson(app, reader.secret, ENVIAR, { auth: { cert: juanaCert }, xml: "AA==" }))).toEqual([
      403,
      "INSUFFICIENT_SCOPE",
    ]);
  });
});
