// The certification pages as the SII writes them (fixtures reconstructed from public clients, each
// naming its source), read by the same functions the gateway uses against the SII.
import { describe, expect, it } from "vitest";
import {
  APPLICATION_FIELDS,
  applicationFields,
  DEFAULT_OPTIONAL_SETS,
  readSetsPage,
  readTestSetAnswer,
  setRequestFields,
} from "../../src/sii/certificacion.ts";
import { BOLETA_APP, boletaRepresentative, gwtRequest, gwtStrings, requestBoletaTestSet } from "../../src/sii/certificacion-boleta.ts";
import { readCertificationData, readProgress } from "../../src/sii/certificacion-read.ts";
import { parseTestSets } from "../../src/sii/certificacion-set-pruebas.ts";
import { CookieJar } from "../../src/sii/cookies.ts";
import { SessionExpired } from "../../src/sii/sessions.ts";
import { certificationFixture as fixture } from "../fixtures/sii/certificacion/read.ts";

const html = (text: string) => ({ headers: new Headers({ "content-type": "text/html; charset=ISO-8859-1" }), text });

describe("certification pages", () => {
  it("test set: reads pe_generar1's sets page and asks pe_generar2 for the basic set and the chosen optional sets", () => {
    const page = readSetsPage(fixture("pe_generar1.html"));
    expect(page?.opcionales.map((o) => o.id)).toEqual(["SET03", "SET06", "SET07", "SET08", "SET09", "SET11", "SET15", "SET72", "SET84"]);
    expect(page?.opcionales[0]).toEqual({ id: "SET03", nombre: "SET GUIA DE DESPACHO" });
    expect(page?.obtenidos).toEqual([
      { nombre: "SET BASICO", estado: "03-11-2026" },
      { nombre: "LIBRO DE VENTAS", estado: "03-11-2026" },
    ]);
    const fields = setRequestFields(page!, DEFAULT_OPTIONAL_SETS);
    expect(Object.fromEntries(fields)).toEqual({
      RUT_EMP: "76192083",
      DV_EMP: "9",
      AUTORIZADA: "S",
      TOTAL: "15",
      SET03: "S",
      SET06: "S",
      SET07: "S",
      SET08: "S",
      SET09: "S",
      SET15: "S",
      SET72: "S",
      SET01: "S",
    });
    expect(readSetsPage(fixture("pe_generar1-no-inscrito.html"))).toBeNull();
  });

  it("test set: reads the set text out of pe_generar2's HTML answer, entities decoded, into its sets and cases", () => {
    const text = readTestSetAnswer(html(fixture("pe_generar2.html")));
    expect(text).toMatch(/^SET BASICO - NUMERO DE ATENCIÓN: 4943173\n/);
    const [basico, guias] = parseTestSets(text ?? "");
    expect(basico).toMatchObject({ nombre: "SET BASICO", numero_atencion: "4943173" });
    expect(basico?.casos[0]?.items).toMatchObject([
      { nombre: "Cajón AFECTO", cantidad: 123, precio_unitario: 1545 },
      { nombre: "Relleno AFECTO", cantidad: 53, precio_unitario: 2547 },
    ]);
    expect(basico?.casos[1]).toMatchObject({ tipo: 61, referencia: { tipo: 33, caso: "4943173-1" } });
    expect(guias).toMatchObject({ nombre: "SET GUIA DE DESPACHO", numero_atencion: "4943174", casos: [{ tipo: 52 }] });
    expect(readTestSetAnswer(html(fixture("pe_generar1.html")))).toBeNull();
    // The set file with the accent broken on the way (devlas-cl/dte-sii cert/SetParser.js reads past it).
    const broken = {
      headers: new Headers({ "content-type": "text/plain" }),
      text: "SET BASICO - NUMERO DE ATENCI\uFFFDN: 4943173\nCASO 4943173-1\n",
    };
    expect(parseTestSets(readTestSetAnswer(broken) ?? "")).toMatchObject([{ nombre: "SET BASICO", numero_atencion: "4943173" }]);
  });

  it("progress: reads each set's state from <b>, and a set still to declare from its inputs", () => {
    expect(readProgress(fixture("pe_avance2.html"))).toEqual([
      { set: "SET BASICO", estado: "REVISADO CONFORME", numero_atencion: "4943173", track_id: "245711048", observaciones: null },
      {
        set: "SET GUIA DE DESPACHO",
        estado: "ENVIO CON ERRORES O REPAROS",
        numero_atencion: "4943174",
        track_id: "245711102",
        observaciones: "52 7: FOLIO NO AUTORIZADO",
      },
      { set: "LIBRO DE VENTAS", estado: "SIN DECLARAR", numero_atencion: "4943175", track_id: null, observaciones: null },
    ]);
    expect(readProgress(fixture("pe_avance1.html"))).toEqual([]);
  });

  it("company data: reads ad_empresa2's rows without </TR>, accents as entities, the resolution date as ISO", () => {
    expect(readCertificationData(fixture("ad_empresa2.html"))).toEqual({
      rut: "76192083-9",
      razon_social: "COMERCIAL PEÑALOLEN & CIA LTDA",
      resolucion: { numero: 0, fecha: "2026-11-03" },
      emails: { contacto_sii: "certificacion@empresa.example", intercambio: null },
      software: "Mi ERP",
      estado: "EN CERTIFICACION",
    });
    expect(readCertificationData(fixture("pe_avance1.html"))).toBeNull();
  });

  it("application: fills pe_confirma with the form's hidden fields, the SII's text fields and every document box", () => {
    const request = {
      contribuyente: "76192083-9",
      administrador: "11111111-1",
      email: "certificacion@empresa.example",
      software: "Mi ERP",
      documentos: [33, 34, 39, 41, 46, 52, 56, 61],
    };
    const fields = applicationFields(fixture("pe_datos_empresa.html"), request);
    expect(fields).toEqual([
      ["RUT_EMP", "76192083"],
      ["DV_EMP", "9"],
      ["EXISTE_PROD", "N"],
      ["EXISTE_CERT", "N"],
      ["URL", ""],
      ["RUT_USU", "11111111"],
      ["DV_USU", "1"],
      ["MAIL_SUP", "certificacion@empresa.example"],
      ["MAIL_SII", "certificacion@empresa.example"],
      ["MAIL_DTE", "certificacion@empresa.example"],
      ["NOM_SW", "Mi ERP"],
      ...["ESFAC", "FACT", "CONIVA", "SET06", "ESBOL", "BOLELE", "BOLELEC", "BOLEXE", "BOLEXEN", "SET72", "SET03", "ND", "NC"].map(
        (box) => [box, "S"],
      ),
      ["ACEPTAR", "Confirmar Postulación"],
    ]);
    expect(APPLICATION_FIELDS[33]).toEqual(["ESFAC", "FACT", "CONIVA"]);
    // A form without the boleta boxes refuses a boleta application instead of posting boxes the SII never showed.
    const invoicesOnly = fixture("pe_datos_empresa.html").replace(/<TR><TD><INPUT TYPE=CHECKBOX NAME=(ESBOL|BOLE)[^\n]*\n/g, "");
    expect(applicationFields(invoicesOnly, { ...request, documentos: [33, 39] })).toEqual({ missing: ["ESBOL", "BOLELE", "BOLELEC"] });
  });

  it("boleta set: rebuilds devlas's GWT-RPC calls byte for byte, reads the representative and the set", () => {
    const base = `7|0|7|${BOLETA_APP}|082D0AC4BC4D75A5DF38F116C53877D4|cl.sii.sdi.diii.certBolElectDte.web.client.service.Facade`;
    expect(gwtRequest("recuperarRepresentantesVigentesUsuariosAutorizados", [{ integer: 76192083 }, { string: "9" }])).toBe(
      `${base}|recuperarRepresentantesVigentesUsuariosAutorizados|java.lang.Integer/3438268394|java.lang.String/2004016611|9|1|2|3|4|2|5|6|5|76192083|7|`,
    );
    expect(gwtRequest("obtenerPostulacionSeg", [{ integer: 76192083 }, { string: "9" }, { string: "90" }, { string: "P90" }])).toBe(
      `${base.replace("7|0|7|", "7|0|9|")}|obtenerPostulacionSeg|java.lang.Integer/3438268394|java.lang.String/2004016611|9|90|P90|1|2|3|4|4|5|6|6|6|5|76192083|7|8|9|`,
    );
    const strings = gwtStrings(fixture("facade-representantes.gwt").trim());
    expect(boletaRepresentative(strings ?? [], "11111111-1")).toBe("11111111-1");
    expect(boletaRepresentative(strings ?? [], "22222222-2")).toBe("11111111-1");
    expect(boletaRepresentative(gwtStrings(fixture("facade-sin-representantes.gwt").trim()) ?? [], "11111111-1")).toBeNull();
    expect(gwtStrings(fixture("facade-excepcion.gwt").trim())).toBeNull();

    const [set] = parseTestSets(fixture("DownloadFileServlet.txt"));
    expect(set?.casos.map((c) => [c.caso, c.tipo, c.items.length])).toEqual([
      ["1", 39, 2],
      ["2", 39, 1],
      ["3", 39, 2],
      ["4", 39, 1],
    ]);
    expect(set?.casos[0]?.items[0]).toMatchObject({ nombre: "Cambio de aceite", cantidad: 1, precio_unitario: 19900 });
    expect(set?.casos[2]?.items[1]).toMatchObject({ nombre: "item exento 2", exento: true, precio_unitario: 1000 });
    expect(set?.casos[3]?.items[0]).toMatchObject({ nombre: "Arroz", cantidad: 5, unidad: "Kg" });
  });

  it("boleta set: the application's redirect to the certificate login is an expired session, its exception a 502", async () => {
    const answering = (res: () => Response) => ({ transport: { mode: "live" as const, fetch: async () => res() }, timeoutMs: 1000 });
    const login = () =>
      new Response(null, {
        status: 302,
        headers: { location: "https://herculesr.sii.cl/cgi_AUT2000/CAutInicio.cgi?https://www4.sii.cl/" },
      });
    await expect(requestBoletaTestSet(answering(login), new CookieJar(), "76192083-9", "11111111-1")).rejects.toBeInstanceOf(
      SessionExpired,
    );
    const refused = () => new Response(fixture("facade-excepcion.gwt").trim(), { headers: { "content-type": "application/json" } });
    await expect(requestBoletaTestSet(answering(refused), new CookieJar(), "76192083-9", "11111111-1")).rejects.toMatchObject({
      status: 502,
      code: "SII_GATEWAY_ERROR",
    });
  });
});
