// Exchanges through the gateway against the sandbox's acceptance/claim service: assignability,
// event history, SII reception date, and the receiver's acceptance or claim.
import { describe, expect, it } from "vitest";
import type { Scope } from "../../src/ports/access.ts";
import { Result } from "../../src/routes/intercambios/respuesta-sii.ts";
import { Cesion, Eventos, Recepcion } from "../../src/routes/intercambios/schema.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { SANDBOX_CUSTOMER, SANDBOX_SUPPLIER } from "../../src/sandbox/intercambios.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { isoFromSii } from "../../src/sii/intercambios.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const juana = {
  auth: { cert: { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem } },
};
const pedro = { auth: { cert: { "pfx-data": SANDBOX_TAXPAYER_CERTS["22222222-2"].legacyPfxBase64, passphrase: "sandbox" } } };
const doc = (op: string, emisor: string, dte: number, folio: number, query = "") =>
  `/api/v1/platform/dte/intercambios/${op}/${emisor}/${dte}/${folio}${query}`;
const RESPUESTA = "/api/v1/platform/dte/intercambios/respuesta_sii";

async function setup(scopes: Scope[] = ["sii:read", "sii:write"]) {
  const t = probeApp();
  const token = await tokenFor(t.deps, { scopes });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postJson(t.app, token.secret, path, body, headers);
  return { ...t, post, token, sandbox: simulatorOf(t.deps.sii) };
}

const wrongCheckDigit = (rut: string) => `${rut.slice(0, -1)}${rut.endsWith("0") ? "1" : "0"}`;
const answer = async (res: Response) => [res.status, (await errorOf(res)).error_code];

describe("assignability (intercambios/cesion)", () => {
  it("says whether each document can be assigned, with the SII's code and text", async () => {
    const { post } = await setup();
    const cases: [number, number, boolean, number][] = [
      [33, 1001, false, 22], // received 2 days ago, no acceptance yet
      [33, 1002, true, 25], // 20 days without claims: tacit acceptance
      [33, 1003, true, 23], // receipt of goods registered
      [34, 2001, false, 24], // claimed
      [61, 3001, false, 20], // a credit note is not assignable
    ];
    for (const [dte, folio, cedible, codigo] of cases) {
      const res = await post(doc("cesion", SANDBOX_SUPPLIER, dte, folio), juana);
      expect(res.status, `${dte}/${folio}`).toBe(200);
      expect(res.headers.get("x-quota-units")).toBe("1");
      const { data } = await answerOf(res, Cesion);
      expect(data, `${dte}/${folio}`).toMatchObject({ emisor: SANDBOX_SUPPLIER, dte, folio, cedible, codigo });
      expect(data.glosa.length).toBeGreaterThan(5);
    }
  });

  it("answers 404 for a document the SII has not received, and 403 to a certificate that is no party to it", async () => {
    const { post } = await setup();
    const missing = await post(doc("cesion", SANDBOX_SUPPLIER, 33, 999999), juana);
    expect(await answer(missing)).toEqual([404, "HTTP_404"]);
    expect((await errorOf(await post(doc("cesion", SANDBOX_SUPPLIER, 33, 999999), juana))).details).toMatchObject({ sii_codigo: 18 });
    expect(await answer(await post(doc("cesion", SANDBOX_SUPPLIER, 33, 1001), pedro))).toEqual([403, "AUTH_ERROR"]);
  });

  it("validates the path: RUT check digit, document type and folio, naming each", async () => {
    const { post } = await setup();
    for (const [path, field] of [
      [doc("cesion", wrongCheckDigit(SANDBOX_SUPPLIER), 33, 1), "emisor"],
      [doc("cesion", SANDBOX_SUPPLIER, 99, 1), "dte"],
      [doc("cesion", SANDBOX_SUPPLIER, 33, 0), "folio"],
      [doc("cesion", SANDBOX_SUPPLIER, 33, 1, "?ambiente=2"), "ambiente"],
    ] as const) {
      const res = await post(path, juana);
      const body = await errorOf(res);
      expect([res.status, body.error_code], path).toEqual([400, "VALIDATION_ERROR"]);
      expect(body.errors?.map((e: { path: string }) => e.path)).toContain(field);
    }
  });
});

describe("event history (intercambios/eventos)", () => {
  it("lists the events with ISO dates and the SII's own, and an empty list when there are none", async () => {
    const { post } = await setup();
    const res = await post(doc("eventos", SANDBOX_SUPPLIER, 33, 1003), juana);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-quota-units")).toBe("2");
    const { data } = await answerOf(res, Eventos);
    expect(data).toMatchObject({ codigo: 15, eventos: [{ codigo: "ERM", responsable: "76192083-9" }] });
    expect(data.eventos[0]?.fecha).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}-0[34]:00$/);
    expect(data.eventos[0]?.fecha).toBe(isoFromSii(data.eventos[0]!.fecha_sii));
    const none = await answerOf(await post(doc("eventos", SANDBOX_SUPPLIER, 33, 1001), juana), Eventos);
    expect(none.data).toMatchObject({ codigo: 16, eventos: [] });
  });

  it("lets the issuer read its own document's events (the customer accepted it)", async () => {
    const { post } = await setup();
    const { data } = await answerOf(await post(doc("eventos", "76192083-9", 33, 5001), juana), Eventos);
    expect(data.eventos).toMatchObject([{ codigo: "ACD", responsable: SANDBOX_CUSTOMER }]);
  });
});

describe("SII reception date (intercambios/recepcion_sii)", () => {
  it("returns the date as ISO with Chile's offset and as the SII wrote it", async () => {
    const { post } = await setup();
    const { data } = await answerOf(await post(doc("recepcion_sii", SANDBOX_SUPPLIER, 33, 1002), juana), Recepcion);
    expect(data.fecha_recepcion_sii).toMatch(/^\d{2}-\d{2}-\d{4} \d{2}:\d{2}:\d{2}$/);
    const days = (Date.now() - new Date(data.fecha_recepcion).getTime()) / 86_400_000;
    expect(days).toBeGreaterThan(19.9);
    expect(days).toBeLessThan(20.1);
  });

  it("answers 404 when the SII has not received the document", async () => {
    const { post } = await setup();
    expect(await answer(await post(doc("recepcion_sii", SANDBOX_SUPPLIER, 33, 424242), juana))).toEqual([404, "HTTP_404"]);
  });
});

describe("ISO dates from the SII's", () => {
  it("uses Chile's offset of that day (summer -03:00, winter -04:00)", () => {
    expect(isoFromSii("21-02-2017 19:02:03")).toBe("2017-02-21T19:02:03-03:00");
    expect(isoFromSii("15-07-2024 08:00:00")).toBe("2024-07-15T08:00:00-04:00");
    expect(isoFromSii("2017-02-21")).toBeNull();
  });
});

describe("acceptance and claims (intercambios/respuesta_sii)", () => {
  it("registers an acceptance, then reports a repeat as already registered, and the history shows it", async () => {
    const { post } = await setup();
    const body = { ...juana, documentos: { emisor: SANDBOX_SUPPLIER, dte: 33, folio: 1001, accion: "ACD" } };
    const res = await post(RESPUESTA, body);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-quota-units")).toBe("5");
    const first = (await answerOf(res, Result)).data;
    expect(first).toMatchObject({
      registrados: 1,
      documentos: [{ folio: 1001, accion: "ACD", resultado: "registrado", codigo: 0, codResp: 0, descResp: expect.any(String) }],
    });
    const again = (await answerOf(await post(RESPUESTA, body), Result)).data;
    expect(again.documentos[0]).toMatchObject({ resultado: "ya_registrado", codigo: 7, codResp: 7 });
    const history = (await answerOf(await post(doc("eventos", SANDBOX_SUPPLIER, 33, 1001), juana), Eventos)).data;
    expect(history.eventos.map((e) => e.codigo)).toEqual(["ACD"]);
    const cesion = (await answerOf(await post(doc("cesion", SANDBOX_SUPPLIER, 33, 1001), juana), Cesion)).data;
    expect(cesion).toMatchObject({ cedible: true, codigo: 23 });
  });

  it("answers a batch document by document with the SII's code tables", async () => {
    const { post } = await setup();
    const documentos = [
      { emisor: SANDBOX_SUPPLIER, dte: 33, folio: 1002, accion: "RCD" }, // 20 days: too late (8)
      { emisor: SANDBOX_SUPPLIER, dte: 34, folio: 2001, accion: "RFT" }, // already claimed (5)
      { emisor: SANDBOX_SUPPLIER, dte: 34, folio: 2001, accion: "ACD" }, // cannot accept a claimed one (12)
      { emisor: SANDBOX_SUPPLIER, dte: 33, folio: 1003, accion: "RFP" }, // receipt given: no goods claim (13)
      { emisor: SANDBOX_SUPPLIER, dte: 33, folio: 777, accion: "ERM" }, // not received (18)
    ];
    const { data } = await answerOf(await post(RESPUESTA, { ...juana, documentos }), Result);
    expect(data.documentos.map((d) => [d.resultado, d.codigo])).toEqual([
      ["rechazado", 8],
      ["ya_registrado", 5],
      ["rechazado", 12],
      ["rechazado", 13],
      ["rechazado", 18],
    ]);
    expect(data).toMatchObject({ registrados: 0, ya_registrados: 1, rechazados: 4, errores: 0, no_enviados: 0 });
  });

  it("refuses types that take no acceptance before calling the SII, naming the document", async () => {
    const { post, sandbox } = await setup();
    const before = sandbox.state.calls.get("reclamos") ?? 0;
    const documentos = [
      { emisor: SANDBOX_SUPPLIER, dte: 33, folio: 1001, accion: "ACD" },
      { emisor: SANDBOX_SUPPLIER, dte: 61, folio: 3001, accion: "ACD" },
    ];
    const res = await post(RESPUESTA, { ...juana, documentos });
    const body = await errorOf(res);
    expect([res.status, body.error_code]).toEqual([400, "VALIDATION_ERROR"]);
    expect(body.errors).toEqual([expect.objectContaining({ path: "documentos[1].dte" })]);
    expect(sandbox.state.calls.get("reclamos") ?? 0).toBe(before);
  });

  it("validates actions and batch size with 422 naming the field", async () => {
    const { post } = await setup();
    const bad = await errorOf(
      await post(RESPUESTA, { ...juana, documentos: [{ emisor: SANDBOX_SUPPLIER, dte: 33, folio: 1, accion: "OK" }] }),
    );
    expect(bad.error_code).toBe("VALIDATION_ERROR");
    expect(JSON.stringify(bad.errors)).toContain("accion");
    const many = Array.from({ length: 51 }, (_, i) => ({ emisor: SANDBOX_SUPPLIER, dte: 33, folio: i + 1, accion: "ACD" }));
    const tooMany = await post(RESPUESTA, { ...juana, documentos: many });
    expect(await answer(tooMany)).toEqual([422, "VALIDATION_ERROR"]);
  });

  it("dry_run checks the certificate and sends nothing, at no cost", async () => {
    const { post, sandbox } = await setup();
    const res = await post(`${RESPUESTA}?dry_run=true`, {
      ...juana,
      documentos: [{ emisor: SANDBOX_SUPPLIER, dte: 33, folio: 1001, accion: "ERM" }],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-quota-units")).toBe("0");
    expect((await answerOf(res, Result)).data.documentos[0]).toMatchObject({ resultado: "no_enviado", codigo: null });
    expect(sandbox.state.calls.get("reclamos") ?? 0).toBe(0);
    expect(sandbox.state.received.get(`0|${SANDBOX_SUPPLIER}|33|1001`)?.events).toEqual([]);
  });

  it("answers the upstream failure itself when the first call fails, and never retries the write", async () => {
    const { post, sandbox } = await setup();
    sandbox.state.faults.push({ service: "reclamos", fault: "maintenance", remaining: 5 });
    const res = await post(RESPUESTA, { ...juana, documentos: [{ emisor: SANDBOX_SUPPLIER, dte: 33, folio: 1001, accion: "ERM" }] });
    expect(await answer(res)).toEqual([503, "SII_UNAVAILABLE"]);
    sandbox.state.faults = [];
    sandbox.state.faults.push({ service: "reclamos", fault: "http_5xx", remaining: 1 });
    const failed = await post(RESPUESTA, { ...juana, documentos: [{ emisor: SANDBOX_SUPPLIER, dte: 33, folio: 1001, accion: "ERM" }] });
    expect(await answer(failed)).toEqual([502, "SII_GATEWAY_ERROR"]);
    expect(sandbox.state.calls.get("reclamos")).toBe(2);
  });

  it("stops a batch at an upstream failure and says which documents were not sent", async () => {
    const { post, sandbox } = await setup();
    const documentos = [1001, 1003, 1002].map((folio) => ({ emisor: SANDBOX_SUPPLIER, dte: 33, folio, accion: "ACD" }));
    let calls = 0;
    const original = sandbox.fetch.bind(sandbox);
    sandbox.fetch = async (request, tls) => {
      if (request.url.includes("registroreclamodteservice") && ++calls === 2) throw new Error("connection reset");
      return original(request, tls);
    };
    const { data } = await answerOf(await post(RESPUESTA, { ...juana, documentos }), Result);
    expect(data.documentos.map((d) => d.resultado)).toEqual(["registrado", "error", "no_enviado"]);
    expect(data).toMatchObject({ registrados: 1, errores: 1, no_enviados: 1 });
  });

  it("honours Idempotency-Key: a replay answers the first result without calling the SII again", async () => {
    const { post, sandbox } = await setup();
    const body = { ...juana, documentos: [{ emisor: SANDBOX_SUPPLIER, dte: 33, folio: 1001, accion: "ERM" }] };
    const first = await answerOf(await post(RESPUESTA, body, { "idempotency-key": "resp-1" }), Result);
    const replay = await post(RESPUESTA, body, { "idempotency-key": "resp-1" });
    expect((await answerOf(replay, Result)).data).toEqual(first.data);
    expect(sandbox.state.calls.get("reclamos")).toBe(1);
  });
});

describe("exchanges: tokens and security", () => {
  it("renews a token the SII forgot, once, and goes on", async () => {
    const { post, sandbox } = await setup();
    await post(doc("cesion", SANDBOX_SUPPLIER, 33, 1002), juana);
    const tokensBefore = sandbox.state.calls.get("token");
    sandbox.state.forgetTokens();
    const res = await post(doc("cesion", SANDBOX_SUPPLIER, 33, 1002), juana);
    expect(res.status).toBe(200);
    expect(sandbox.state.calls.get("token")).toBe((tokensBefore ?? 0) + 1);
  });

  it("needs a token (401), sii:read for queries and sii:write for the answer (403)", async () => {
    const { app, deps } = await setup();
    const missing = await app.request(doc("cesion", SANDBOX_SUPPLIER, 33, 1001), { method: "POST", body: JSON.stringify(juana) });
    expect(await answer(missing)).toEqual([401, "HTTP_401"]);
    const writer = await tokenFor(deps, { scopes: ["sii:write"] });
    expect(await answer(await postJson(app, writer.secret, doc("eventos", SANDBOX_SUPPLIER, 33, 1001), juana))).toEqual([
      403,
      "INSUFFICIENT_SCOPE",
    ]);
    const reader = await tokenFor(deps, { scopes: ["sii:read"] });
    const body = { ...juana, documentos: [{ emisor: SANDBOX_SUPPLIER, dte: 33, folio: 1001, accion: "ERM" }] };
    expect(await answer(await postJson(app, reader.secret, RESPUESTA, body))).toEqual([403, "INSUFFICIENT_SCOPE"]);
  });

  it("never shares a DTE token between accounts holding the same certificate", async () => {
    const { app, deps, sandbox } = await setup();
    const a = await tokenFor(deps, { scopes: ["sii:read"], account: "acct-a" });
    const b = await tokenFor(deps, { scopes: ["sii:read"], account: "acct-b" });
    await postJson(app, a.secret, doc("cesion", SANDBOX_SUPPLIER, 33, 1002), juana);
    await postJson(app, a.secret, doc("cesion", SANDBOX_SUPPLIER, 33, 1002), juana);
    expect(sandbox.state.calls.get("token")).toBe(1);
    await postJson(app, b.secret, doc("cesion", SANDBOX_SUPPLIER, 33, 1002), juana);
    expect(sandbox.state.calls.get("token")).toBe(2);
  });

  it("answers 400 AUTH_ERROR for a certificate that cannot sign, without calling the SII", async () => {
    const { post, sandbox } = await setup();
    const res = await post(doc("cesion", SANDBOX_SUPPLIER, 33, 1001), {
      auth: { cert: { "pfx-data": pedro.auth.cert["pfx-data"], passphrase: "wrong" } },
    });
    expect(await answer(res)).toEqual([400, "AUTH_ERROR"]);
    expect(sandbox.state.calls.get("seed") ?? 0).toBe(0);
  });
});
