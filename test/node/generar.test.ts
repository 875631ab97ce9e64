// documentos/generar through HTTP, and the whole life of a document made by it against the sandbox:
// folios requested → documents generated → envelope sent → tracked until accepted → verified
// (locally and by the SII) → accepted by its receiver.
import { describe, expect, it } from "vitest";
import { base64ToBytes } from "../../src/lib/encoding.ts";
import { decodeLatin1 } from "../../src/lib/latin1.ts";
import type { Scope } from "../../src/ports/access.ts";
import { Granted } from "../../src/routes/caf/solicitar.ts";
import { Generated } from "../../src/routes/documentos/generar.ts";
import { Sent } from "../../src/routes/envios/enviar.ts";
import { Status } from "../../src/routes/envios/estado.ts";
import { Verified } from "../../src/routes/envios/verificar.ts";
import { EXAMPLE_ISSUER } from "../../src/routes/example-documents.ts";
import { Result } from "../../src/routes/intercambios/respuesta-sii.ts";
import { Eventos } from "../../src/routes/intercambios/schema.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { ENVIO_STEP_MS } from "../../src/sandbox/envios.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, sandboxClock, tokenFor } from "../support/app.ts";

const GENERAR = "/api/v1/platform/dte/documentos/generar";
const COMPANY = "76192083-9";
const juanaCert = { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem };
const pedroCert = { "pfx-data": SANDBOX_TAXPAYER_CERTS["22222222-2"].legacyPfxBase64, passphrase: "sandbox" };

async function setup(scopes: Scope[] = ["sii:read", "sii:write"]) {
  const t = probeApp();
  const later = sandboxClock(t.deps);
  const token = await tokenFor(t.deps, { scopes });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postJson(t.app, token.secret, path, body, headers);
  /** A CAF the sandbox grants through the gateway's own folio operation. */
  const caf = async (tipo: number, cantidad: number) => {
    const res = await post(`/api/v1/sii/dte/caf/solicitar/${COMPANY}/${tipo}/${cantidad}`, { auth: { cert: juanaCert } });
    expect(res.status).toBe(200);
    const { data } = await answerOf(res, Granted);
    return { xml: data.caf_xml, desde: data.folio_inicial };
  };
  return { ...t, post, caf, later, sandbox: simulatorOf(t.deps.sii) };
}

const factura = (folio: number, tipo = 33, receptor = "22222222-2") => ({
  Encabezado: {
    IdDoc: { TipoDTE: tipo, Folio: folio },
    Emisor: EXAMPLE_ISSUER,
    Receptor: { RUTRecep: receptor, RznSocRecep: "Pedro Pérez", GiroRecep: "Servicios", DirRecep: "Calle Uno 1", CmnaRecep: "Ñuñoa" },
  },
  Detalle: { NmbItem: "Asesoría contable", QtyItem: 2, PrcItem: 50_000 },
});
const request = (dte: unknown, caf: string | string[], extra: Record<string, unknown> = {}) => ({
  auth: { cert: juanaCert },
  dte,
  caf,
  resolucion: { fecha: "2014-08-22", numero: 80 },
  ...extra,
});

describe("documentos/generar", () => {
  it("signs documents and their envelope at weight 2, with normalized totals and warnings", async () => {
    const { post, caf } = await setup();
    const { xml, desde } = await caf(33, 5);
    const res = await post(GENERAR, request([factura(desde), factura(desde + 1)], xml));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-quota-units")).toBe("2");
    const { data } = await answerOf(res, Generated);
    expect(data.sobre).toBe("EnvioDTE");
    expect(data.documentos.map((d) => d.folio)).toEqual([desde, desde + 1]);
    const dte = decodeLatin1(base64ToBytes(data.documentos[0]!.dte_xml));
    expect(dte).toContain("<MntNeto>100000</MntNeto><TasaIVA>19</TasaIVA><IVA>19000</IVA><MntTotal>119000</MntTotal>");
    expect(dte).toContain("<CmnaRecep>Ñuñoa</CmnaRecep>");
    expect(data.documentos[0]?.ted).toMatch(/^<TED version="1.0"><DD><RE>76192083-9<\/RE><TD>33<\/TD>/);
    expect(data.documentos[0]?.warnings).toContain("Encabezado.IdDoc.TpoTranVenta = 1");
    expect(decodeLatin1(base64ToBytes(data.envio_xml))).toContain("<RutEnvia>11111111-1</RutEnvia><RutReceptor>60803000-K</RutReceptor>");
  });

  it("a liquidación-factura (43): folios from the sandbox, normalized with its commissions, signed, verified and printed", async () => {
    const { post, caf } = await setup();
    const { xml, desde } = await caf(43, 1);
    const liquidacion = factura(desde, 43) as Record<string, unknown>;
    liquidacion.Detalle = { TpoDocLiq: "33", NmbItem: "Venta por cuenta de terceros", QtyItem: 2, PrcItem: 50_000 };
    liquidacion.Comisiones = { Glosa: "Comisión de venta", TasaComision: 10 };
    const res = await post(GENERAR, request(liquidacion, xml));
    expect(res.status).toBe(200);
    const { data } = await answerOf(res, Generated);
    const dte = decodeLatin1(base64ToBytes(data.documentos[0]!.dte_xml));
    // 10% of 100 000 net is 10 000, its IVA 1 900: 119 000 − 11 900 is owed.
    expect(dte).toContain(
      "<Comisiones><ValComNeto>10000</ValComNeto><ValComExe>0</ValComExe><ValComIVA>1900</ValComIVA></Comisiones><MntTotal>107100</MntTotal>",
    );
    const verdict = await post("/api/v1/platform/dte/envios/verificar", { xml: data.envio_xml });
    expect((await answerOf(verdict, Verified)).data).toMatchObject({
      valido: true,
      documentos: [{ tipo: 43, folio: desde, timbre: { valido: true } }],
    });
    const pdf = await post("/api/v1/platform/dte/documentos/pdf", { xml: data.envio_xml, oficina_sii: "PROVIDENCIA" });
    expect(pdf.status).toBe(200);
    const escpos = await post("/api/v1/platform/dte/documentos/escpos", { xml: data.envio_xml });
    const receipt = Buffer.from(await escpos.arrayBuffer()).toString("latin1");
    expect(receipt).toContain("LIQUIDACI");
    expect(receipt).toContain("Comisión 10%: Comisión de venta (IVA $ 1.900)");
  });

  it("addresses the envelope to the buyer when asked (the exchange copy)", async () => {
    const { post, caf } = await setup();
    const { xml, desde } = await caf(33, 1);
    const { data } = await answerOf(await post(GENERAR, request(factura(desde), xml, { receptor_envio: "22222222-2" })), Generated);
    expect(decodeLatin1(base64ToBytes(data.envio_xml))).toContain("<RutReceptor>22222222-2</RutReceptor>");
  });

  it("names the field: folio outside the CAF and unknown element (400), missing resolution (422), bad certificate (400)", async () => {
    const { post, caf } = await setup();
    const { xml, desde } = await caf(33, 2);
    const outside = await errorOf(await post(GENERAR, request(factura(desde + 2), xml)));
    expect([outside.error_code, outside.errors?.[0]?.path]).toEqual(["VALIDATION_ERROR", "dte.Encabezado.IdDoc.Folio"]);
    const doc = factura(desde);
    (doc.Detalle as Record<string, unknown>).Colour = "red";
    const unknown = await errorOf(await post(GENERAR, request(doc, xml)));
    expect(unknown.errors?.map((e: { path: string }) => e.path)).toEqual(["dte.Detalle.Colour"]);
    const { resolucion: _, ...noResolution } = request(factura(desde), xml);
    const missing = await post(GENERAR, noResolution);
    expect(missing.status).toBe(422);
    expect((await errorOf(missing)).errors?.[0]?.path).toBe("resolucion");
    const badCert = await post(GENERAR, request(factura(desde), xml, { auth: { cert: { "cert-data": "x", "pkey-data": "y" } } }));
    expect([badCert.status, (await errorOf(badCert)).errors?.[0]?.path]).toEqual([400, "auth.cert.cert-data"]);
  });

  it("needs a token (401) with sii:write (403), and charges nothing for a refused request", async () => {
    const { app, post, caf } = await setup(["sii:read", "sii:write"]);
    const { xml, desde } = await caf(33, 1);
    const anonymous = await app.request(GENERAR, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(request(factura(desde), xml)),
    });
    expect(anonymous.status).toBe(401);
    const reader = await setup(["sii:read"]);
    const forbidden = await reader.post(GENERAR, request(factura(desde), xml));
    expect([forbidden.status, (await errorOf(forbidden)).error_code]).toEqual([403, "INSUFFICIENT_SCOPE"]);
    const refused = await post(GENERAR, request(factura(desde + 5), xml));
    expect(refused.status).toBe(400);
    expect(refused.headers.get("x-quota-units")).toBe("0");
  });
});

describe("a generated document's whole life against the sandbox", () => {
  it("is sent, accepted, verified by us and by the SII, and accepted by its receiver", async () => {
    const { post, caf, later, sandbox } = await setup();
    const { xml, desde } = await caf(33, 2);
    const generated = (await answerOf(await post(GENERAR, request([factura(desde), factura(desde + 1, 33, "60803000-K")], xml)), Generated))
      .data;

    const sent = await post(
      "/api/v1/platform/dte/envios/enviar",
      { auth: { cert: juanaCert }, xml: generated.envio_xml },
      { "idempotency-key": "life-1" },
    );
    expect(sent.status).toBe(200);
    const trackId = (await answerOf(sent, Sent)).data.track_id;
    expect(sandbox.state.calls.get("dte_upload")).toBe(1);

    later(4 * ENVIO_STEP_MS + 100);
    const estado = (
      await answerOf(await post(`/api/v1/platform/dte/envios/estado/${COMPANY}/${trackId}`, { auth: { cert: juanaCert } }), Status)
    ).data;
    expect(estado).toMatchObject({
      estado: "EPR",
      resultado: "aceptado",
      documentos: [{ tipo: 33, informados: 2, aceptados: 2, rechazados: 0 }],
    });

    const verified = (
      await answerOf(await post("/api/v1/platform/dte/envios/verificar", { xml: generated.envio_xml, auth: { cert: juanaCert } }), Verified)
    ).data;
    expect(verified.valido).toBe(true);
    expect(verified.documentos[0]).toMatchObject({
      firma: { valido: true },
      timbre: { valido: true },
      caf: { valido: true },
      coherencia: { valido: true },
      sii: { estado: "DOK" },
    });

    const respuesta = await post("/api/v1/platform/dte/intercambios/respuesta_sii", {
      auth: { cert: pedroCert },
      documentos: { emisor: COMPANY, dte: 33, folio: desde, accion: "ACD" },
    });
    expect((await answerOf(respuesta, Result)).data.documentos[0]).toMatchObject({ resultado: "registrado", codigo: 0 });
    const eventos = (
      await answerOf(await post(`/api/v1/platform/dte/intercambios/eventos/${COMPANY}/33/${desde}`, { auth: { cert: juanaCert } }), Eventos)
    ).data;
    expect(JSON.stringify(eventos)).toContain("ACD");
  });

  it("boletas travel in an EnvioBOLETA through the boleta service and end accepted", async () => {
    const { post, caf, later } = await setup();
    const { xml, desde } = await caf(39, 1);
    const boleta = {
      Encabezado: {
        IdDoc: { TipoDTE: 39, Folio: desde },
        Emisor: { RUTEmisor: COMPANY, RznSoc: "Comercial Sandbox SpA", GiroEmis: "Comercio" },
        Receptor: { RUTRecep: "66666666-6" },
      },
      Detalle: { NmbItem: "Café", QtyItem: 2, PrcItem: 1_990 },
    };
    const generated = (await answerOf(await post(GENERAR, request(boleta, xml)), Generated)).data;
    expect(generated.sobre).toBe("EnvioBOLETA");
    const sent = await post("/api/v1/platform/dte/envios/enviar", { auth: { cert: juanaCert }, xml: generated.envio_xml });
    expect(sent.status).toBe(200);
    const trackId = (await answerOf(sent, Sent)).data.track_id;
    later(4 * ENVIO_STEP_MS + 100);
    const estado = (
      await answerOf(
        await post(`/api/v1/platform/dte/envios/estado/${COMPANY}/${trackId}?servicio=boleta`, { auth: { cert: juanaCert } }),
        Status,
      )
    ).data;
    expect(estado.resultado).toBe("aceptado");
  });
});
