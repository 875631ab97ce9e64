// Folio request and annulment through the gateway against the sandbox SII.
import { describe, expect, it } from "vitest";
import { base64ToBytes } from "../../src/lib/encoding.ts";
import { decodeLatin1, encodeLatin1 } from "../../src/lib/latin1.ts";
import { elementText } from "../../src/lib/xml.ts";
import type { Scope } from "../../src/ports/access.ts";
import { FolioAnnulmentEnvelope } from "../../src/routes/caf/schema.ts";
import { Granted } from "../../src/routes/caf/solicitar.ts";
import { SANDBOX_CAF_SIGNER, SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { CookieJar } from "../../src/sii/cookies.ts";
import { requestFolios } from "../../src/sii/folios.ts";
import confirma from "../fixtures/sii/dte/folios-confirma.http?raw";
import confirmaFolioInicial from "../fixtures/sii/dte/folios-confirma-folio-inicial.http?raw";
import generaArchivo from "../fixtures/sii/dte/folios-genera-archivo.http?raw";
import generaFolio from "../fixtures/sii/dte/folios-genera-folio.http?raw";
import solicita from "../fixtures/sii/dte/folios-solicita.http?raw";
import solicitaDcto from "../fixtures/sii/dte/folios-solicita-dcto.http?raw";
import { replay, sentFields } from "../fixtures/sii/dte/replay.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
const pedro = SANDBOX_TAXPAYER_CERTS["22222222-2"];
const juanaPem = { auth: { cert: { "cert-data": juana.certPem, "pkey-data": juana.keyPem } } };
const pedroPfx = { auth: { cert: { "pfx-data": pedro.modernPfxBase64, passphrase: pedro.passphrase } } };

async function setup(scopes?: Scope[]) {
  const t = probeApp();
  const token = await tokenFor(t.deps, { scopes, plan: { daily_units: 10_000, monthly_units: 100_000 } });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postJson(t.app, token.secret, path, body, headers);
  const sandbox = simulatorOf(t.deps.sii);
  return { ...t, token, post, sandbox, calls: (service: string) => sandbox.state.calls.get(service) ?? 0 };
}

async function verifiesWithSandboxKey(caf: string): Promise<boolean> {
  const da = /<DA>[\s\S]*<\/DA>/.exec(caf)?.[0] ?? "";
  const frma = elementText(caf, "FRMA") ?? "";
  const key = await crypto.subtle.importKey(
    "spki",
    base64ToBytes(SANDBOX_CAF_SIGNER.publicKeyPem.replace(/-----[^-]+-----|\s+/g, "")),
    { name: "RSASSA-PKCS1-v1_5", hash: "SHA-1" },
    false,
    ["verify"],
  );
  return crypto.subtle.verify("RSASSA-PKCS1-v1_5", key, base64ToBytes(frma), encodeLatin1(da));
}

const solicitar = (emisor: string, dte: number, cantidad: number, query = "") =>
  `/api/v1/sii/dte/caf/solicitar/${emisor}/${dte}/${cantidad}${query}`;
const anular = (emisor: string, dte: number, a: number, b: number, query = "") =>
  `/api/v1/sii/dte/caf/anular/${emisor}/${dte}/${a}/${b}${query}`;

describe("folio request", () => {
  it("stamps the next folios and returns a CAF signed by the sandbox key, charging 5 units", async () => {
    const { post } = await setup();
    const res = await post(solicitar("76192083-9", 33, 10), juanaPem);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-quota-units")).toBe("5");
    const { data } = await answerOf(res, Granted);
    expect(data).toMatchObject({ folio_inicial: 101, folio_final: 110, cantidad: 10 });
    expect(data.fecha_autorizacion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const caf = decodeLatin1(base64ToBytes(data.caf_xml));
    expect(caf).toMatch(/^<\?xml version="1.0" encoding="ISO-8859-1"\?>/);
    expect([elementText(caf, "RE"), elementText(caf, "TD"), elementText(caf, "IDK")]).toEqual(["76192083-9", "33", "900"]);
    expect(caf).toContain("BEGIN RSA PRIVATE KEY");
    expect(await verifiesWithSandboxKey(caf)).toBe(true);
  });

  it("works with a PFX, on both ambientes, each with its own numbering", async () => {
    const { post } = await setup();
    const prod = await answerOf(await post(solicitar("22222222-2", 34, 5), pedroPfx), Granted);
    const cert = await answerOf(await post(solicitar("22222222-2", 34, 5, "?ambiente=1"), pedroPfx), Granted);
    expect([prod.data.folio_inicial, prod.data.folio_final]).toEqual([1, 5]);
    expect([cert.data.folio_inicial, cert.data.folio_final]).toEqual([1, 5]);
  });

  it("stamps every electronic type the SII's page offers: 43, 46, 110, 111 and 112 too", async () => {
    const { post } = await setup();
    for (const tipo of [43, 46, 110, 111, 112]) {
      const res = await post(solicitar("22222222-2", tipo, 2), pedroPfx);
      expect(res.status, String(tipo)).toBe(200);
      const { data } = await answerOf(res, Granted);
      expect(data).toMatchObject({ folio_inicial: 1, folio_final: 2, cantidad: 2 });
      expect(elementText(decodeLatin1(base64ToBytes(data.caf_xml)), "TD")).toBe(String(tipo));
    }
  });

  it("passes the boletas' extra confirmation of the first folio", async () => {
    const { post, calls, sandbox } = await setup();
    // Pinned tidy: this test counts the stamping pages exactly; a rough session expiry before of_solicita_folios adds calls.
    sandbox.state.rough = null;
    const { data } = await answerOf(await post(solicitar("22222222-2", 39, 3), pedroPfx), Granted);
    expect(data).toMatchObject({ folio_inicial: 1, folio_final: 3 });
    // The start page, the type, then of_confirma_folio twice: Solicitar Numeración and Confirmar Folio Inicial.
    expect(calls("caf_request")).toBe(4);
  });

  it("previews with dry_run: the certificate is checked, the SII is not contacted, nothing is charged", async () => {
    const { post, sandbox } = await setup();
    const res = await post(solicitar("76192083-9", 33, 10, "?dry_run=true"), juanaPem);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-quota-units")).toBe("0");
    const body = await answerOf(res, Granted);
    expect(body.message).toContain("Preview");
    expect(body.data).toMatchObject({ folio_inicial: 1, folio_final: 10, cantidad: 10, caf_xml: "" });
    expect(sandbox.state.calls.size).toBe(0);
    const bad = await post(solicitar("76192083-9", 33, 10, "?dry_run=1"), {
      auth: { cert: { "pfx-data": pedro.modernPfxBase64, passphrase: "wrong" } },
    });
    expect([bad.status, (await errorOf(bad)).error_code]).toEqual([400, "AUTH_ERROR"]);
  });

  it("marks a preview's placeholders, and shows the folios after the ledger's last ones when it holds some", async () => {
    const { post } = await setup();
    const blind = (await answerOf(await post(solicitar("76192083-9", 33, 10, "?dry_run=1"), juanaPem), Granted)).data;
    expect(blind.vista_previa).toEqual({
      provisionales: ["folio_inicial", "folio_final", "caf_xml", "reobtenido"],
      estimados: ["fecha_autorizacion", "cantidad"],
    });
    // A range granted into the ledger: the next preview starts after its last folio, as the SII would.
    const granted = (await answerOf(await post(solicitar("76192083-9", 33, 4), { ...juanaPem, ledger: true }), Granted)).data;
    expect(granted.vista_previa).toBeUndefined();
    expect(granted.ledger).toBeTruthy();
    const res = await post(solicitar("76192083-9", 33, 2, "?dry_run=1"), juanaPem);
    const body = await answerOf(res, Granted);
    expect(body.data).toMatchObject({ folio_inicial: granted.folio_final + 1, folio_final: granted.folio_final + 2, caf_xml: "" });
    expect(body.data.vista_previa).toEqual({
      provisionales: ["caf_xml", "reobtenido"],
      estimados: ["folio_inicial", "folio_final", "fecha_autorizacion", "cantidad"],
    });
    expect(body.message).toContain(`follow the ${granted.folio_final} this account's ledger holds`);
    // Another issuer or type: the ledger knows nothing, the folios are placeholders again.
    const other = (await answerOf(await post(solicitar("76192083-9", 34, 2, "?dry_run=1"), juanaPem), Granted)).data;
    expect([other.folio_inicial, other.vista_previa?.provisionales[0]]).toEqual([1, "folio_inicial"]);
  });

  it("refuses bad document types and quantities by name, before the SII", async () => {
    const { post, sandbox } = await setup();
    for (const [path, field] of [
      [solicitar("76192083-9", 35, 10), "dte"],
      [solicitar("76192083-9", 33, 0), "cantidad"],
      [solicitar("76192083-9", 33, 10_001), "cantidad"],
      [solicitar("76192083-8", 33, 1), "emisor"],
    ] as const) {
      const res = await post(path, juanaPem);
      expect(res.status, path).toBe(400);
      expect((await errorOf(res)).errors?.map((e) => e.path)).toEqual([field]);
    }
    expect(sandbox.state.calls.size).toBe(0);
  });

  it("refuses more than the SII's MAX_AUTOR before stamping anything", async () => {
    const { post, calls } = await setup();
    const res = await post(solicitar("76192083-9", 33, 1001), juanaPem);
    expect(res.status).toBe(400);
    const body = await errorOf(res);
    expect(body.errors?.[0]).toMatchObject({ path: "cantidad" });
    expect(body.details?.max_autor).toBe(1000);
    expect(calls("caf_generate")).toBe(0);
    // The SII was asked for its MAX_AUTOR: the refusal is charged (test/node/charge-after-sii.test.ts).
    expect(res.headers.get("x-quota-units")).toBe("5");
  });

  it("passes the SII's anti-hoarding refusal (NO SE AUTORIZA) as 400 with its text", async () => {
    const { post } = await setup();
    expect((await post(solicitar("76192083-9", 33, 1000), juanaPem)).status).toBe(200);
    const res = await post(solicitar("76192083-9", 33, 10), juanaPem);
    expect(res.status).toBe(400);
    const body = await errorOf(res);
    expect(body.error_code).toBe("VALIDATION_ERROR");
    expect(body.details?.sii_message).toContain("NO SE AUTORIZA");
  });

  it("answers 403 AUTH_ERROR when the certificate has no permission over the taxpayer", async () => {
    const { post } = await setup();
    const res = await post(solicitar("76192083-9", 33, 10), pedroPfx);
    expect([res.status, (await errorOf(res)).error_code]).toEqual([403, "AUTH_ERROR"]);
  });

  it("answers 422 naming the missing credential fields", async () => {
    const { post } = await setup();
    const res = await post(solicitar("76192083-9", 33, 10), { auth: { cert: { "cert-data": juana.certPem } } });
    expect(res.status).toBe(422);
    expect((await errorOf(res)).errors?.map((e) => e.path)).toEqual(["auth.cert.pkey-data"]);
  });

  it("answers 503 with Retry-After in SII maintenance, without charging", async () => {
    const { post, sandbox } = await setup();
    sandbox.state.faults.push({ service: "cert_login", fault: "maintenance", remaining: 1 });
    const res = await post(solicitar("76192083-9", 33, 10), juanaPem);
    expect([res.status, res.headers.get("retry-after"), res.headers.get("x-quota-units")]).toEqual([503, "300", "0"]);
  });

  it("stamps once per Idempotency-Key, replaying the answer", async () => {
    const { post, calls } = await setup();
    const first = await post(solicitar("76192083-9", 33, 10), juanaPem, { "idempotency-key": "caf-1" });
    const second = await post(solicitar("76192083-9", 33, 10), juanaPem, { "idempotency-key": "caf-1" });
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(await answerOf(second, Granted)).toEqual(await answerOf(first, Granted));
    expect(calls("caf_generate")).toBe(1);
  });

  it("reuses the account's certificate session, and never another account's", async () => {
    const { post, deps, app, calls, sandbox } = await setup();
    // Pinned tidy: this test counts certificate logins exactly; a rough early session expiry adds one.
    sandbox.state.rough = null;
    await post(solicitar("76192083-9", 33, 1), juanaPem);
    await post(solicitar("76192083-9", 33, 1), juanaPem);
    expect(calls("cert_login")).toBe(2); // one login (the representation choice counts as a second request)
    const other = await tokenFor(deps, { account: "globex" });
    await app.request(solicitar("76192083-9", 33, 1), {
      method: "POST",
      headers: { "x-api-token": other.secret, "content-type": "application/json" },
      body: JSON.stringify(juanaPem),
    });
    expect(calls("cert_login")).toBe(4);
  });

  it("needs sii:write and a token", async () => {
    const { post, app } = await setup(["sii:read"]);
    expect((await post(solicitar("76192083-9", 33, 10), juanaPem)).status).toBe(403);
    expect((await app.request(solicitar("76192083-9", 33, 10), { method: "POST" })).status).toBe(401);
  });
});

describe("folio annulment", () => {
  it("annuls a requested range once; annulling it again is refused", async () => {
    const { post } = await setup();
    const { data } = await answerOf(await post(solicitar("76192083-9", 33, 10), juanaPem), Granted);
    const res = await post(anular("76192083-9", 33, data.folio_inicial, data.folio_final), juanaPem);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-quota-units")).toBe("5");
    const done = await answerOf(res, FolioAnnulmentEnvelope);
    expect(done.data.folios_anulados).toBe(10);
    expect(done.data.glosa).toContain("ha autorizado la anulación");
    const again = await post(anular("76192083-9", 33, data.folio_inicial, data.folio_final), juanaPem);
    expect(again.status).toBe(400);
    expect((await errorOf(again)).details?.sii_message).toContain("ANULADOS ANTERIORMENTE");
  });

  it("annuls part of a range, refuses used folios (400) and unknown ranges (404)", async () => {
    const { post } = await setup();
    expect((await answerOf(await post(anular("76192083-9", 33, 50, 60), juanaPem), FolioAnnulmentEnvelope)).data.folios_anulados).toBe(11);
    const used = await post(anular("76192083-9", 33, 5, 20), juanaPem);
    expect([used.status, (await errorOf(used)).error_code]).toEqual([400, "VALIDATION_ERROR"]);
    const unknown = await post(anular("76192083-9", 33, 5000, 5010), juanaPem);
    expect([unknown.status, (await errorOf(unknown)).error_code]).toEqual([404, "HTTP_404"]);
  });

  it("refuses an inverted range by name and previews with dry_run", async () => {
    const { post, sandbox } = await setup();
    const inverted = await post(anular("76192083-9", 33, 20, 10), juanaPem);
    expect([inverted.status, (await errorOf(inverted)).errors?.[0]?.path]).toEqual([400, "folio_inicial"]);
    const preview = await post(anular("76192083-9", 33, 50, 60, "?dry_run=on"), juanaPem);
    const annulled = (await answerOf(preview, FolioAnnulmentEnvelope)).data;
    expect(annulled.folios_anulados).toBe(11);
    expect(annulled.vista_previa).toEqual({ provisionales: ["glosa", "anulados_ledger"], estimados: ["folios_anulados"] });
    expect(preview.headers.get("x-quota-units")).toBe("0");
    expect(sandbox.state.calls.size).toBe(0);
  });
});

describe("folio stamping against the SII's recorded pages", () => {
  const cgi = (name: string, method = "POST") => `${method} https://palena.sii.cl/cvc_cgi/dte/${name}`;

  it("confirms a first stamping with 'Confirmar Folio Inicial' and posts back CON_CREDITO/CON_AJUSTE as the pages carry them", async () => {
    const { transport, sent } = replay({
      [cgi("of_solicita_folios", "GET")]: solicita,
      [cgi("of_solicita_folios_dcto")]: solicitaDcto,
      [cgi("of_confirma_folio")]: [confirmaFolioInicial, confirma],
      [cgi("of_genera_folio")]: generaFolio,
      [cgi("of_genera_archivo")]: generaArchivo,
    });
    const granted = await requestFolios({ transport, timeoutMs: 2_000 }, new CookieJar(), {
      emisor: "76192083-9",
      tipo: 33,
      cantidad: 200,
      ambiente: "0",
    });
    expect([granted.folio_inicial, granted.folio_final, granted.fecha_autorizacion]).toEqual([1, 200, "2003-09-04"]);

    const posts = (name: string) => sent.filter((r) => r.method === "POST" && r.url.endsWith(`/${name}`)).map((r) => sentFields(r.body));
    const [request, confirmation] = posts("of_confirma_folio");
    expect(request?.get("ACEPTAR")).toBe("Solicitar Numeración");
    expect([request?.get("CON_CREDITO"), request?.get("CON_AJUSTE"), request?.get("CANT_DOCTOS")]).toEqual(["0", "0", "200"]);
    expect([confirmation?.get("ACEPTAR"), confirmation?.get("FOLIO_INICIAL")]).toEqual(["Confirmar Folio Inicial", "1"]);
    const [genera] = posts("of_genera_folio");
    expect(
      genera &&
        Object.fromEntries(["ACEPTAR", "CON_CREDITO", "CON_AJUSTE", "FOLIO_INI", "FOLIO_FIN", "NOMUSU"].map((n) => [n, genera.get(n)])),
    ).toEqual({
      ACEPTAR: "Obtener Folios",
      CON_CREDITO: "0",
      CON_AJUSTE: "0",
      FOLIO_INI: "1",
      FOLIO_FIN: "200",
      NOMUSU: "JUANA PEREZ",
    });
  });
});
