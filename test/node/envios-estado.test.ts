// The status of an uploaded envelope through the gateway against the sandbox's QueryEstUp.
import { describe, expect, it } from "vitest";
import { Status } from "../../src/routes/envios/estado.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { ENVIO_STEP_MS, envioEstado } from "../../src/sandbox/envios.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { advancedDocumentStatus, queryUploadStatus, resultadoOf } from "../../src/sii/envios.ts";
import estDteAvErr9 from "../fixtures/sii/dte/queryestdteav-err-code-9.http?raw";
import estDteAvBody from "../fixtures/sii/dte/queryestdteav-estado-in-body.http?raw";
import estDteAvHeader from "../fixtures/sii/dte/queryestdteav-estado-in-header.http?raw";
import estUpErr1 from "../fixtures/sii/dte/queryestup-minus11-err-code-1.http?raw";
import estUpErr2 from "../fixtures/sii/dte/queryestup-minus11-err-code-2.http?raw";
import estUpSrv2 from "../fixtures/sii/dte/queryestup-minus11-srv-code-2.http?raw";
import { replay } from "../fixtures/sii/dte/replay.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const juana = {
  auth: { cert: { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem } },
};
const pedro = { auth: { cert: { "pfx-data": SANDBOX_TAXPAYER_CERTS["22222222-2"].legacyPfxBase64, passphrase: "sandbox" } } };
const path = (emisor: string, trackId: string, query = "") => `/api/v1/platform/dte/envios/estado/${emisor}/${trackId}${query}`;

async function setup() {
  const t = probeApp();
  const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
  const post = (url: string, body: unknown) => postJson(t.app, token.secret, url, body);
  return { ...t, post, sandbox: simulatorOf(t.deps.sii) };
}
const answer = async (res: Response) => [res.status, (await errorOf(res)).error_code];

describe("envelope status (envios/estado)", () => {
  it("reports a processed envelope with its counts per type and a plain result", async () => {
    const { post } = await setup();
    const res = await post(path("76192083-9", "0260000001"), juana);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-quota-units")).toBe("1");
    expect((await answerOf(res, Status)).data).toMatchObject({
      track_id: "0260000001",
      estado: "EPR",
      glosa: "Envio Procesado",
      resultado: "aceptado",
      documentos: [{ tipo: 33, informados: 3, aceptados: 3, rechazados: 0, reparos: 0 }],
    });
  });

  it("calls an EPR envelope with a rejected document rejected (LibreDTE getEstadoEnvioSii), keeping the counts, and reports refused envelopes", async () => {
    const { post } = await setup();
    const mixed = (await answerOf(await post(path("76192083-9", "0260000002"), juana), Status)).data;
    expect(mixed).toMatchObject({
      estado: "EPR",
      resultado: "rechazado",
      documentos: [
        { tipo: 33, informados: 2, aceptados: 1, rechazados: 1, reparos: 0 },
        { tipo: 61, informados: 1, aceptados: 0, rechazados: 0, reparos: 1 },
      ],
    });
    const refused = (await answerOf(await post(path("76192083-9", "260000003"), juana), Status)).data;
    expect(refused).toMatchObject({ estado: "RFR", glosa: "Rechazado por Error en Firma", resultado: "rechazado", documentos: [] });
  });

  it("shows an envelope still being processed, in the certification ambiente too", async () => {
    const { post, sandbox } = await setup();
    sandbox.state.envios.set("1260000099", {
      trackId: "1260000099",
      ambiente: "1",
      emisor: "76192083-9",
      sender: "11111111-1",
      file: "envio.xml",
      received: Date.now() + 60_000,
      documents: [{ tipo: 33, folio: 20, estado: "DOK" }],
    });
    const { data } = await answerOf(await post(path("76192083-9", "1260000099", "?ambiente=1"), juana), Status);
    expect(data).toMatchObject({ estado: "REC", resultado: "procesando", documentos: [] });
    // Asked in the other ambiente the SII answers -11 "Error de Proceso", which is no proof of absence.
    expect(await answer(await post(path("76192083-9", "1260000099"), juana))).toEqual([502, "SII_GATEWAY_ERROR"]);
  });

  it("answers a retryable 502 for -11 Error de Proceso, 404 only when the SII says the envelope is another company's", async () => {
    const { post } = await setup();
    const unknown = await errorOf(await post(path("76192083-9", "9999999999"), juana));
    expect([unknown.error_code, unknown.details]).toEqual([
      "SII_GATEWAY_ERROR",
      expect.objectContaining({ sii_estado: "-11", sii_err_code: "2", sii_message: "Error de Proceso" }),
    ]);
    const foreign = await post(path("11111111-1", "0260000001"), juana);
    const body = await errorOf(foreign);
    expect([foreign.status, body.error_code, body.details?.sii_err_code]).toEqual([404, "HTTP_404", "1"]);
    expect(await answer(await post(path("76192083-9", "0260000001"), pedro))).toEqual([403, "AUTH_ERROR"]);
  });

  it("validates the path, naming the parameter", async () => {
    const { post } = await setup();
    for (const [url, field] of [
      [path("76192083-0", "1"), "emisor"],
      [path("76192083-9", "12ab"), "track_id"],
      [path("76192083-9", "1234567890123456"), "track_id"],
    ] as const) {
      const res = await post(url, juana);
      const body = await errorOf(res);
      expect([res.status, body.error_code], url).toEqual([400, "VALIDATION_ERROR"]);
      expect(body.errors?.map((e: { path: string }) => e.path)).toContain(field);
    }
  });

  it("gets a new token once when the SII has forgotten it", async () => {
    const { post, sandbox } = await setup();
    await post(path("76192083-9", "0260000001"), juana);
    sandbox.state.forgetTokens();
    const res = await post(path("76192083-9", "0260000001"), juana);
    expect(res.status).toBe(200);
    expect(sandbox.state.calls.get("token")).toBe(2);
  });

  it("maps maintenance to 503 with the SII's text", async () => {
    const { post, sandbox } = await setup();
    sandbox.state.faults.push({ service: "envio_status", fault: "maintenance", remaining: 2 });
    const res = await post(path("76192083-9", "0260000001"), juana);
    const body = await errorOf(res);
    expect([res.status, body.error_code]).toEqual([503, "SII_UNAVAILABLE"]);
    expect(body.details?.sii_message).toBeTruthy();
  });

  it("needs a token with sii:read", async () => {
    const { app, deps } = await setup();
    const none = await app.request(path("76192083-9", "0260000001"), { method: "POST", body: JSON.stringify(juana) });
    expect(await answer(none)).toEqual([401, "HTTP_401"]);
    const settings = await tokenFor(deps, { scopes: ["settings:read"] });
    expect(await answer(await postJson(app, settings.secret, path("76192083-9", "0260000001"), juana))).toEqual([
      403,
      "INSUFFICIENT_SCOPE",
    ]);
  });
});

describe("envelope states", () => {
  const envio = {
    trackId: "1",
    ambiente: "0" as const,
    emisor: "76192083-9",
    sender: "11111111-1",
    file: "e.xml",
    received: 0,
    documents: [],
  };

  it("moves REC → SOK → FOK → PDR → EPR one step at a time, or halts at its rejection", () => {
    expect([0, 1, 2, 3, 4, 9].map((s) => envioEstado(envio, s * ENVIO_STEP_MS))).toEqual(["REC", "SOK", "FOK", "PDR", "EPR", "EPR"]);
    expect([0, 1, 5].map((s) => envioEstado({ ...envio, rejection: "RSC" }, s * ENVIO_STEP_MS))).toEqual(["REC", "RSC", "RSC"]);
    expect(envioEstado({ ...envio, rejection: "RFR" }, 5 * ENVIO_STEP_MS)).toBe("RFR");
  });

  it("turns codes and counts into a plain result", () => {
    const counts = (aceptados: number, rechazados: number, reparos: number) => [
      { tipo: 33, informados: aceptados + rechazados + reparos, aceptados, rechazados, reparos },
    ];
    expect(resultadoOf("PDR", [])).toBe("procesando");
    expect(resultadoOf("EPR", counts(2, 0, 0))).toBe("aceptado");
    expect(resultadoOf("EPR", counts(1, 0, 1))).toBe("aceptado_con_reparos");
    expect(resultadoOf("EPR", counts(1, 1, 0))).toBe("rechazado");
    expect(resultadoOf("EPR", [...counts(3, 0, 0), { tipo: 61, informados: 2, aceptados: 0, rechazados: 1, reparos: 1 }])).toBe(
      "rechazado",
    );
    expect(resultadoOf("EPR", counts(0, 2, 0))).toBe("rechazado");
    expect(resultadoOf("RCT", [])).toBe("rechazado");
    expect(resultadoOf("RLV", [])).toBe("aceptado_con_reparos");
  });
});

describe("the SII's recorded status answers, read by the live code", () => {
  const ESTUP = "POST https://palena.sii.cl/DTEWS/QueryEstUp.jws";
  const ESTDTEAV = "POST https://palena.sii.cl/DTEWS/services/QueryEstDteAv";
  const ctxFor = (route: string, fixture: string) => ({ transport: replay({ [route]: fixture }).transport, timeoutMs: 2_000 });
  const status = (fixture: string) => queryUploadStatus(ctxFor(ESTUP, fixture), "0", "TOKEN1", "76192083-9", "9934380406");

  it("reads QueryEstUp -11 from its ERR_CODE/SQL_CODE/SRV_CODE: a retryable 502 with the SII's text, 404 only for ERR_CODE 1", async () => {
    await expect(status(estUpErr2)).rejects.toMatchObject({
      status: 502,
      code: "SII_GATEWAY_ERROR",
      init: { details: { sii_estado: "-11", sii_err_code: "2", sii_message: "Error de Proceso" } },
    });
    await expect(status(estUpSrv2)).rejects.toMatchObject({
      status: 502,
      init: { details: { sii_srv_code: "2", sii_sql_code: "-1012", sii_message: "Error SQL Error SQL_CODE #-1012 Error de Proceso" } },
    });
    await expect(status(estUpErr1)).rejects.toMatchObject({ status: 404, code: "HTTP_404", init: { details: { sii_err_code: "1" } } });
  });

  const doc = {
    emisor: "76192083-9",
    receptor: "76192083-9",
    tipo: 33,
    folio: 747,
    fecha: "2020-01-14",
    monto: 5699863,
    firma: "pw4Cr2nD7kFp",
  };
  const check = (fixture: string) => advancedDocumentStatus(ctxFor(ESTDTEAV, fixture), "0", "TOKEN1", doc);

  it("reads QueryEstDteAv's ESTADO from the header or the body, and ERR_CODE 9 as no power over the company", async () => {
    expect(await check(estDteAvHeader)).toEqual({
      recibido: true,
      estado: "DOK",
      glosa: "Documento Recibido por el SII. Datos Coinciden con los Registrados",
      track_id: "0260000001",
    });
    expect(await check(estDteAvBody)).toMatchObject({ recibido: true, estado: "DNK", track_id: "0260000001" });
    await expect(check(estDteAvErr9)).rejects.toMatchObject({ status: 403, code: "AUTH_ERROR", init: { details: { sii_err_code: "9" } } });
  });
});

describe("QueryEstUp's counts, read by name and checked", () => {
  // The answer's shape: RESP_HDR/RESP_BODY with repeated TIPO_DOCTO … REPAROS groups (LibreDTE
  // CheckXmlDocumentSentStatusResponse.php `parseDocumentos`); the numbers are made up.
  const ESTUP = "POST https://palena.sii.cl/DTEWS/QueryEstUp.jws";
  const escaped = (xml: string) => xml.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
  const answerWith = (body: string) =>
    "HTTP/1.1 200 OK\ncontent-type: text/xml;charset=utf-8\n\n" +
    '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><getEstUpResponse><getEstUpReturn>' +
    escaped(
      `<?xml version="1.0" encoding="UTF-8"?><SII:RESPUESTA xmlns:SII="http://www.sii.cl/XMLSchema"><SII:RESP_HDR><TRACKID>9934380406</TRACKID><ESTADO>EPR</ESTADO><GLOSA>Envio Procesado</GLOSA><NUM_ATENCION>1</NUM_ATENCION></SII:RESP_HDR><SII:RESP_BODY>${body}</SII:RESP_BODY></SII:RESPUESTA>`,
    ) +
    "</getEstUpReturn></getEstUpResponse></soapenv:Body></soapenv:Envelope>";
  const status = (body: string) =>
    queryUploadStatus(
      { transport: replay({ [ESTUP]: answerWith(body) }).transport, timeoutMs: 2_000 },
      "0",
      "TOKEN1",
      "76192083-9",
      "9934380406",
    );
  const group = (t: number, inf: number, acc: number, rch: number, rep: number) =>
    `<TIPO_DOCTO>${t}</TIPO_DOCTO><INFORMADOS>${inf}</INFORMADOS><ACEPTADOS>${acc}</ACEPTADOS><RECHAZADOS>${rch}</RECHAZADOS><REPAROS>${rep}</REPAROS>`;

  it("reports rejected for one rejected document among accepted ones, with every type's counts", async () => {
    expect(await status(group(33, 3, 2, 1, 0) + group(61, 1, 1, 0, 0))).toMatchObject({
      estado: "EPR",
      resultado: "rechazado",
      documentos: [
        { tipo: 33, informados: 3, aceptados: 2, rechazados: 1, reparos: 0 },
        { tipo: 61, informados: 1, aceptados: 1, rechazados: 0, reparos: 0 },
      ],
    });
  });

  it("reads the counts by name whatever their order inside a group", async () => {
    const reordered =
      "<TIPO_DOCTO>33</TIPO_DOCTO><REPAROS>1</REPAROS><RECHAZADOS>0</RECHAZADOS><ACEPTADOS>2</ACEPTADOS><INFORMADOS>3</INFORMADOS>";
    expect(await status(reordered)).toMatchObject({
      resultado: "aceptado_con_reparos",
      documentos: [{ tipo: 33, informados: 3, aceptados: 2, rechazados: 0, reparos: 1 }],
    });
  });

  it("answers SII_FORMAT_CHANGED for counts that do not add up, a missing or renamed count, or a type counted twice", async () => {
    const refused = { status: 502, code: "SII_FORMAT_CHANGED", init: { details: { service: "envio_status" } } };
    await expect(status(group(33, 5, 2, 1, 0))).rejects.toMatchObject(refused);
    await expect(status(group(33, 3, 2, 1, 0).replace(/<REPAROS>0<\/REPAROS>/, ""))).rejects.toMatchObject(refused);
    await expect(status(group(33, 3, 2, 1, 0).replaceAll("RECHAZADOS", "RECHAZOS"))).rejects.toMatchObject(refused);
    await expect(status(group(33, 3, 2, 1, 0).replace("<ACEPTADOS>2", "<ACEPTADOS>dos"))).rejects.toMatchObject(refused);
    await expect(status(group(33, 1, 1, 0, 0) + group(33, 1, 1, 0, 0))).rejects.toMatchObject(refused);
  });
});
