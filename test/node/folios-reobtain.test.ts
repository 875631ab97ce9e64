// Folios stamped are never left without their file: the download retried on DTE-OFGA, the range
// re-obtained through the SII's re-obtaining pages, "ya fue autorizado el rango" mapped to the
// range it names, and a 502 that says exactly what happened when nothing gives the file. Also the
// folio pages' readers: field names and the ranges' own promises.
import { describe, expect, it } from "vitest";
import { base64ToBytes } from "../../src/lib/encoding.ts";
import { decodeLatin1 } from "../../src/lib/latin1.ts";
import { elementText } from "../../src/lib/xml.ts";
import { Granted } from "../../src/routes/caf/solicitar.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { cafQuirks } from "../../src/sandbox/folios-answers.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { CookieJar } from "../../src/sii/cookies.ts";
import { annulFolios, requestFolios } from "../../src/sii/folios.ts";
import { alreadyAuthorized, rangeForms, stampingLimits } from "../../src/sii/folios-pages.ts";
import { replay } from "../fixtures/sii/dte/replay.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
const auth = { auth: { cert: { "cert-data": juana.certPem, "pkey-data": juana.keyPem } } };
const solicitar = (cantidad: number) => `/api/v1/sii/dte/caf/solicitar/76192083-9/33/${cantidad}`;

async function setup() {
  const t = probeApp();
  const token = await tokenFor(t.deps, { plan: { daily_units: 10_000, monthly_units: 100_000 } });
  const sandbox = simulatorOf(t.deps.sii);
  const post = (path: string, headers: Record<string, string> = {}) => postJson(t.app, token.secret, path, auth, headers);
  return { post, sandbox, quirks: cafQuirks(sandbox.state), calls: (service: string) => sandbox.state.calls.get(service) ?? 0 };
}

const rangeOfCaf = (data: { caf_xml: string }) => {
  const caf = decodeLatin1(base64ToBytes(data.caf_xml));
  return [Number(elementText(caf, "D")), Number(elementText(caf, "H"))];
};

describe("the CAF file after stamping", () => {
  it("downloads again while the SII answers DTE-OFGA (devlas retries it three times), stamping once", async () => {
    const { post, quirks, calls, sandbox } = await setup();
    // Pinned tidy: this test counts downloads against the DTE-OFGA answers it queues itself; a rough DTE-OFGA would add one.
    sandbox.state.rough = null;
    quirks.ofga = 2;
    const res = await post(solicitar(5));
    const { data } = await answerOf(res, Granted);
    expect([res.status, data.folio_inicial, data.folio_final, data.reobtenido]).toEqual([200, 101, 105, false]);
    expect(rangeOfCaf(data)).toEqual([101, 105]);
    expect([calls("caf_generate"), calls("caf_download"), calls("caf_reobtain")]).toEqual([1, 3, 0]);
  });

  it("re-obtains the stamped range through the re-obtaining pages when the download keeps failing", async () => {
    const { post, quirks, calls, sandbox } = await setup();
    // Pinned tidy: this test counts downloads and re-obtaining pages exactly; a rough DTE-OFGA or session expiry adds calls.
    sandbox.state.rough = null;
    quirks.ofga = 4;
    const res = await post(solicitar(5));
    const { data } = await answerOf(res, Granted);
    expect([res.status, data.folio_inicial, data.folio_final, data.cantidad, data.reobtenido]).toEqual([200, 101, 105, 5, true]);
    expect(rangeOfCaf(data)).toEqual([101, 105]);
    // rf_reobtencion1 → 2 → 3 → rf_genera_folio → rf_genera_archivo; the stamping once.
    expect([calls("caf_generate"), calls("caf_download"), calls("caf_reobtain")]).toEqual([1, 4, 5]);
  });

  it("re-obtains when the download answers something else than the file (no retry of that)", async () => {
    const { post, sandbox, calls } = await setup();
    sandbox.state.faults.push({ service: "caf_download", fault: "html", remaining: 1 });
    const { data } = await answerOf(await post(solicitar(3)), Granted);
    expect([data.folio_inicial, data.folio_final, data.reobtenido]).toEqual([101, 103, true]);
    expect([calls("caf_generate"), calls("caf_download")]).toEqual([1, 1]);
  });

  // The words around "ya fue autorizado el rango desde N hasta M" are inferred (src/sandbox/folios-answers.ts).
  it("maps 'ya fue autorizado el rango desde N hasta M' to that range and re-obtains it, never 'did not grant'", {
    tags: ["inferred-sii-shape"],
  }, async () => {
    const { post, quirks, calls } = await setup();
    quirks.alreadyAuthorized = 1;
    const res = await post(solicitar(4));
    const { data } = await answerOf(res, Granted);
    expect([res.status, data.folio_inicial, data.folio_final, data.reobtenido]).toEqual([200, 101, 104, true]);
    expect(rangeOfCaf(data)).toEqual([101, 104]);
    expect(calls("caf_generate")).toBe(1);
  });

  it("finds the range in the re-obtaining list when the stamping's answer was lost, without stamping again", async () => {
    const { post, quirks, calls } = await setup();
    quirks.loseStamping = 1;
    const { data } = await answerOf(await post(solicitar(2)), Granted);
    expect([data.folio_inicial, data.folio_final, data.reobtenido]).toEqual([101, 102, true]);
    expect(calls("caf_generate")).toBe(1);
    // The next request gets the next folios: nothing was stamped twice.
    const next = (await answerOf(await post(solicitar(1)), Granted)).data;
    expect([next.folio_inicial, next.reobtenido]).toEqual([103, false]);
  });

  it("answers a 502 that says the folios are stamped and where to re-obtain them when nothing gives the file; the key replays it", async () => {
    const { post, sandbox, quirks, calls } = await setup();
    quirks.ofga = 4;
    sandbox.state.faults.push({ service: "caf_reobtain", fault: "http_5xx", remaining: 10 });
    const res = await post(solicitar(5), { "idempotency-key": "caf-lost" });
    const body = await errorOf(res);
    expect([res.status, body.error_code]).toEqual([502, "SII_GATEWAY_ERROR"]);
    expect(body.message).toContain("stamped folios 101-105");
    expect(body.message).toContain("Do not request them again");
    expect(body.details).toMatchObject({
      service: "caf_download",
      folio_inicial: 101,
      folio_final: 105,
      estampados: true,
      reobtener_en: "https://palena.sii.cl/cvc_cgi/dte/rf_reobtencion1_folios",
    });
    expect(body.details?.intentos).toHaveLength(2);
    expect(body.details).toHaveProperty(["intentos", 0], expect.stringContaining("DTE-OFGA (4 tries)"));
    const again = await post(solicitar(5), { "idempotency-key": "caf-lost" });
    expect([again.status, again.headers.get("idempotent-replayed")]).toEqual([502, "true"]);
    expect(calls("caf_generate")).toBe(1);
  });

  it("says the stamping may have happened when its answer was lost and the list does not show the range", async () => {
    const { post, sandbox, calls } = await setup();
    sandbox.state.faults.push({ service: "caf_generate", fault: "http_5xx", remaining: 1 });
    const res = await post(solicitar(5));
    const body = await errorOf(res);
    expect(res.status).toBe(502);
    expect(body.message).toContain("may have stamped folios 101-105");
    expect(calls("caf_generate")).toBe(1);
  });
});

describe("the folio pages, read by field name and checked", () => {
  const list = (forms: Record<string, string | number>[]) =>
    forms
      .map(
        (f) =>
          `<form name="frm" method="post" action="/cvc_cgi/dte/rf_reobtencion3_folios">${Object.entries(f)
            .map(([n, v]) => `<input name="${n}" type="hidden" value="${v}">`)
            .join("")}</form>`,
      )
      .join("");

  it("reads the ranges of the re-obtaining list by their fields, in any order (newest first, as the SII lists them)", () => {
    // Field set and order as in the SII's saved page (sergiokml/PortalFacturas "Tabla reobtenciones.html"), restated.
    const html = list([
      {
        PAGINA: 185624,
        CANT_DOCTOS: 1,
        RUT_EMP: 76192083,
        DV_EMP: 9,
        DIA: 15,
        ANO: 2022,
        MES: "06",
        COD_DOCTO: 33,
        FOLIO_INI: 8226,
        FOLIO_FIN: 8226,
      },
      { FOLIO_FIN: 8224, FOLIO_INI: 8221, CANT_DOCTOS: 4, COD_DOCTO: 33 },
    ]);
    expect(rangeForms(html, "rf_reobtencion3_folios", "caf_reobtain").map((r) => [r.desde, r.hasta])).toEqual([
      [8226, 8226],
      [8221, 8224],
    ]);
  });

  it("refuses an inverted range, a count that is not the range's, overlapping ranges or a missing bound with SII_FORMAT_CHANGED", () => {
    const refusal = (forms: Record<string, string | number>[]) => {
      try {
        rangeForms(list(forms), "rf_reobtencion3_folios", "caf_annul");
        return "read";
      } catch (error) {
        const e = error as { status: number; code: string; init: { details: { service: string } } };
        return `${e.status} ${e.code} ${e.init.details.service}`;
      }
    };
    const cases = [
      [{ FOLIO_INI: 10, FOLIO_FIN: 5 }],
      [{ FOLIO_INI: 1, FOLIO_FIN: 5, CANT_DOCTOS: 4 }],
      [
        { FOLIO_INI: 1, FOLIO_FIN: 5 },
        { FOLIO_INI: 5, FOLIO_FIN: 9 },
      ],
      [{ FOLIO_DESDE: 1, FOLIO_FIN: 5 }],
      [{ FOLIO_INI: "uno", FOLIO_FIN: 5 }],
    ];
    for (const forms of cases) expect(refusal(forms), JSON.stringify(forms)).toBe("502 SII_FORMAT_CHANGED caf_annul");
  });

  it("reads MAX_AUTOR and FOLIOS_DISP as numbers or absent, never a guess", () => {
    expect(
      stampingLimits([
        ["MAX_AUTOR", "200"],
        ["FOLIOS_DISP", "0"],
      ]),
    ).toEqual({ max_autor: 200, folios_disponibles: 0 });
    expect(stampingLimits([["MAX_AUTOR", "200"]])).toEqual({ max_autor: 200, folios_disponibles: null });
    expect(() => stampingLimits([["MAX_AUTOR", "doscientos"]])).toThrow(expect.objectContaining({ code: "SII_FORMAT_CHANGED" }));
  });

  it("finds the range an 'already authorized' answer names", () => {
    expect(alreadyAuthorized("La solicitud ya fue autorizado el rango desde 101 hasta 110.")).toEqual({ desde: 101, hasta: 110 });
    expect(alreadyAuthorized("ya fue autorizada la solicitud")).toBeNull();
    expect(alreadyAuthorized("Timbraje Autorizado")).toBeUndefined();
  });
});

describe("the folio pages through the live code", () => {
  const CGI = "https://palena.sii.cl/cvc_cgi/dte";
  const html = (body: string) => `HTTP/1.1 200 OK\ncontent-type: text/html; charset=ISO-8859-1\n\n<html><body>${body}</body></html>`;
  const hiddenForm = (action: string, fields: Record<string, string | number>) =>
    `<form method="POST" action="/cvc_cgi/dte/${action}">${Object.entries(fields)
      .map(([n, v]) => `<input type="hidden" name="${n}" value="${v}">`)
      .join("")}<input type="submit" name="ACEPTAR" value="Go"></form>`;
  const ctx = (routes: Record<string, string>) => ({ transport: replay(routes).transport, timeoutMs: 2_000 });
  const refusalOf = async (call: Promise<unknown>) => {
    try {
      await call;
      return "answered";
    } catch (error) {
      const e = error as { code?: string; init?: { details?: { service?: string } } };
      return `${e.code} ${e.init?.details?.service}`;
    }
  };

  it("refuses an annulment list whose range is inverted instead of answering 'no such range'", async () => {
    const routes = {
      [`GET ${CGI}/af_anular1`]: html("ANULACION DE FOLIOS"),
      [`POST ${CGI}/af_anular2`]: html(
        `ANULACION DE FOLIOS${hiddenForm("af_anular3", { RUT_EMP: 76192083, DV_EMP: 9, COD_DOCTO: 33, FOLIO_INI: 10, FOLIO_FIN: 5 })}`,
      ),
    };
    const request = { emisor: "76192083-9", tipo: 33, desde: 6, hasta: 7, ambiente: "0" as const };
    expect(await refusalOf(annulFolios(ctx(routes), new CookieJar(), request))).toBe("SII_FORMAT_CHANGED caf_annul");
  });

  it("refuses a MAX_AUTOR that is not a number before stamping anything", async () => {
    const routes = {
      [`GET ${CGI}/of_solicita_folios`]: html("SOLICITUD DE TIMBRAJE"),
      [`POST ${CGI}/of_solicita_folios_dcto`]: html(
        hiddenForm("of_confirma_folio", { RUT_EMP: 76192083, DV_EMP: 9, COD_DOCTO: 33, MAX_AUTOR: "doscientos", FOLIOS_DISP: 0 }),
      ),
    };
    const request = { emisor: "76192083-9", tipo: 33, cantidad: 5, ambiente: "0" as const };
    expect(await refusalOf(requestFolios(ctx(routes), new CookieJar(), request))).toBe("SII_FORMAT_CHANGED caf_request");
  });
});
