// Res. Ex. SII 154/2025 from 2026-11-01 through the gateway: formatos/json (JSON and XML input) and
// documentos/generar warn before the date and refuse from it naming every missing field; the
// sandbox's SII rejects an uploaded guía without its transfer data, naming each tag.
import { describe, expect, it } from "vitest";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import { bytesToBase64 } from "../../src/lib/encoding.ts";
import { encodeLatin1 } from "../../src/lib/latin1.ts";
import { Granted } from "../../src/routes/caf/solicitar.ts";
import { Normalized } from "../../src/routes/documentos/formatos-json.ts";
import { Generated } from "../../src/routes/documentos/generar.ts";
import { Sent } from "../../src/routes/envios/enviar.ts";
import { Status } from "../../src/routes/envios/estado.ts";
import { Verified } from "../../src/routes/envios/verificar.ts";
import { EXAMPLE_ISSUER, EXAMPLE_RECEIVER, EXAMPLE_TRANSPORT } from "../../src/routes/example-documents.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { ENVIO_STEP_MS } from "../../src/sandbox/envios.ts";
import { folioBook } from "../../src/sandbox/folios.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, sandboxClock, tokenFor } from "../support/app.ts";
import { signedEnvelope, type TestDocument } from "../support/envelope.ts";

const COMPANY = "76192083-9";
const FORMATOS = "/api/v1/platform/dte/formatos/json";
const GENERAR = "/api/v1/platform/dte/documentos/generar";
const ENVIAR = "/api/v1/platform/dte/envios/enviar";
const juanaCert = { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem };

type Node = Record<string, unknown>;

async function setup() {
  const t = probeApp();
  const later = sandboxClock(t.deps);
  const token = await tokenFor(t.deps, { scopes: ["sii:read", "sii:write"] });
  const post = (path: string, body: unknown) => postJson(t.app, token.secret, path, body);
  return { ...t, post, later, sandbox: simulatorOf(t.deps.sii) };
}

/** A sale's guía; `complete` gives it the transfer data, the line its unit. */
const guia = (complete: boolean, idDoc: Node = {}): Node => ({
  Encabezado: {
    IdDoc: { TipoDTE: 52, Folio: 1, IndTraslado: 1, ...idDoc },
    Emisor: complete ? EXAMPLE_ISSUER : { RUTEmisor: COMPANY, RznSoc: "Comercial Sandbox SpA", GiroEmis: "Comercio", Acteco: 479100 },
    Receptor: EXAMPLE_RECEIVER,
    ...(complete ? { Transporte: EXAMPLE_TRANSPORT } : {}),
  },
  Detalle: [{ NmbItem: "Cajas de cartón", QtyItem: 10, PrcItem: 1000, ...(complete ? { UnmdItem: "UN" } : {}) }],
});

const MISSING = [
  "dte.Encabezado.Emisor.DirOrigen",
  "dte.Encabezado.Emisor.CmnaOrigen",
  "dte.Encabezado.Transporte.DirDest",
  "dte.Encabezado.Transporte.CmnaDest",
  "dte.Encabezado.Transporte.Chofer.RUTChofer",
  "dte.Encabezado.Transporte.Chofer.NombreChofer",
  "dte.Encabezado.Transporte.RUTTrans",
  "dte.Encabezado.Transporte.Patente",
  "dte.Detalle[0].UnmdItem",
];

describe("formatos/json", () => {
  it("before 2026-11-01: 200, each missing field a warning", async () => {
    const { post } = await setup();
    const res = await post(FORMATOS, { dte: guia(false, { FchEmis: "2026-10-31" }) });
    expect(res.status).toBe(200);
    const { data } = await answerOf(res, Normalized);
    const warnings = ("warnings" in data ? data.warnings : []).filter((w) => w.includes("Res. Ex. SII 154/2025"));
    expect(warnings.map((w) => `dte.${w.split(" ")[0]}`)).toEqual(MISSING);
    expect(warnings).toContain(
      "Encabezado.Transporte.Chofer.RUTChofer is required in a guía de despacho from 2026-11-01 (Res. Ex. SII 154/2025, resolutivo 1 b): accepted, the document being dated 2026-10-31",
    );
  });

  it("from 2026-11-01 (and undated, so today): 400 naming every missing field with its rule", async () => {
    const { post } = await setup();
    for (const idDoc of [{ FchEmis: "2026-11-01" }, {}]) {
      const res = await post(FORMATOS, { dte: guia(false, idDoc) });
      expect(res.status).toBe(400);
      const body = await errorOf(res);
      expect(body.error_code).toBe("VALIDATION_ERROR");
      expect(body.errors?.map((e) => e.path)).toEqual(MISSING);
      expect(body.errors?.[4]?.message).toBe("is required in a guía de despacho from 2026-11-01 (Res. Ex. SII 154/2025, resolutivo 1 b)");
    }
  });

  it("a complete guía from the date: 200, its Transporte as given, no transfer warning", async () => {
    const { post } = await setup();
    const res = await post(FORMATOS, { dte: guia(true, { FchEmis: "2026-11-02" }) });
    expect(res.status).toBe(200);
    const { data } = await answerOf(res, Normalized);
    if (!("dte" in data)) throw new Error("answered as xml");
    expect((data.dte.Encabezado as Node).Transporte).toEqual(EXAMPLE_TRANSPORT);
    expect(data.warnings.filter((w) => w.includes("154/2025"))).toEqual([]);
  });

  it("IndTraslado on an invoice (33): refused from the date; an invoice with TipoDespacho 2 needs carrier and plate", async () => {
    const { post } = await setup();
    const invoice = (idDoc: Node) => ({
      Encabezado: { IdDoc: { TipoDTE: 33, Folio: 1, FchEmis: "2026-11-05", ...idDoc }, Emisor: EXAMPLE_ISSUER, Receptor: EXAMPLE_RECEIVER },
      Detalle: { NmbItem: "Cajas de cartón", QtyItem: 10, PrcItem: 1000 },
    });
    const traslado = await errorOf(await post(FORMATOS, { dte: invoice({ IndTraslado: 1 }) }));
    expect(traslado.errors).toEqual([
      expect.objectContaining({
        path: "dte.Encabezado.IdDoc.IndTraslado",
        message: expect.stringContaining("guías de despacho (52) only"),
      }),
    ]);
    const despacho = await errorOf(await post(FORMATOS, { dte: invoice({ TipoDespacho: 2 }) }));
    expect(despacho.errors?.map((e) => e.path)).toEqual([
      "dte.Encabezado.Transporte.DirDest",
      "dte.Encabezado.Transporte.CmnaDest",
      "dte.Encabezado.Transporte.Chofer.RUTChofer",
      "dte.Encabezado.Transporte.Chofer.NombreChofer",
      "dte.Encabezado.Transporte.RUTTrans",
      "dte.Encabezado.Transporte.Patente",
    ]);
  });

  it("XML input: a guía dated from the switch without its transport is refused by its place in the upload", async () => {
    const { post } = await setup();
    const xml = `<DTE version="1.0"><Documento ID="T52F1"><Encabezado><IdDoc><TipoDTE>52</TipoDTE><Folio>1</Folio><FchEmis>2026-11-20</FchEmis><IndTraslado>5</IndTraslado></IdDoc>
<Emisor><RUTEmisor>${COMPANY}</RUTEmisor><RznSoc>Comercial Sandbox SpA</RznSoc><GiroEmis>Comercio</GiroEmis><Acteco>479100</Acteco><DirOrigen>Av. Providencia 1234</DirOrigen><CmnaOrigen>Providencia</CmnaOrigen></Emisor>
<Receptor><RUTRecep>${COMPANY}</RUTRecep><RznSocRecep>Comercial Sandbox SpA</RznSocRecep></Receptor><Totales><MntTotal>0</MntTotal></Totales></Encabezado>
<Detalle><NroLinDet>1</NroLinDet><NmbItem>Cajas</NmbItem><QtyItem>3</QtyItem><UnmdItem>UN</UnmdItem></Detalle></Documento></DTE>`;
    const body = await errorOf(await post(FORMATOS, { xml: bytesToBase64(encodeLatin1(xml)) }));
    expect(body.errors?.map((e) => e.path)).toEqual([
      "xml.documentos[0].Encabezado.Transporte.DirDest",
      "xml.documentos[0].Encabezado.Transporte.CmnaDest",
      "xml.documentos[0].Encabezado.Transporte.Chofer.RUTChofer",
      "xml.documentos[0].Encabezado.Transporte.Chofer.NombreChofer",
      "xml.documentos[0].Encabezado.Transporte.RUTTrans",
      "xml.documentos[0].Encabezado.Transporte.Patente",
    ]);
  });
});

describe("documentos/generar", () => {
  async function guiaCaf(post: (path: string, body: unknown) => Promise<Response>) {
    const res = await post(`/api/v1/sii/dte/caf/solicitar/${COMPANY}/52/3`, { auth: { cert: juanaCert } });
    const { data } = await answerOf(res, Granted);
    return { caf: data.caf_xml, desde: data.folio_inicial };
  }
  const request = (dte: unknown, caf: string, extra: Node = {}) => ({
    auth: { cert: juanaCert },
    dte,
    caf,
    resolucion: { fecha: "2014-08-22", numero: 80 },
    ...extra,
  });

  it("signs nothing for a guía from the date without its transfer data, normalized or taken as given", async () => {
    const { post } = await setup();
    const { caf, desde } = await guiaCaf(post);
    const normalized = await post(GENERAR, request(guia(false, { Folio: desde }), caf));
    expect(normalized.status).toBe(400);
    expect((await errorOf(normalized)).errors?.map((e) => e.path)).toEqual(MISSING);

    const given = guia(false, { Folio: desde, FchEmis: "2026-11-20" });
    (given.Encabezado as Node).Totales = { MntNeto: 10_000, TasaIVA: 19, IVA: 1_900, MntTotal: 11_900 };
    (given.Detalle as Node[])[0] = { NroLinDet: 1, NmbItem: "Cajas de cartón", QtyItem: 10, PrcItem: 1000, MontoItem: 10_000 };
    const asGiven = await post(GENERAR, request(given, caf, { normalizar: false }));
    expect(asGiven.status).toBe(400);
    expect((await errorOf(asGiven)).errors?.map((e) => e.path)).toEqual(MISSING);
  });

  it("signs a complete guía, and one dated before the switch with the gaps as its warnings", async () => {
    const { post } = await setup();
    const { caf, desde } = await guiaCaf(post);
    const res = await post(GENERAR, request([guia(true, { Folio: desde }), guia(false, { Folio: desde + 1, FchEmis: "2026-10-30" })], caf));
    expect(res.status).toBe(200);
    const { data } = await answerOf(res, Generated);
    expect(data.documentos[0]?.warnings.filter((w) => w.includes("154/2025"))).toEqual([]);
    expect(data.documentos[1]?.warnings.filter((w) => w.includes("154/2025"))).toHaveLength(MISSING.length);
  });
});

describe("the sandbox's SII (envios/enviar, then envios/estado)", () => {
  const TRANSFER_XML = {
    idDoc: "<IndTraslado>1</IndTraslado>",
    emisor: "<DirOrigen>Av. Providencia 1234</DirOrigen><CmnaOrigen>Providencia</CmnaOrigen>",
    // With the fields format v2.5 adds (PatenteCarro; FchSalida, HraSalida, FchLlegada after Aduana): read as well.
    transporte:
      "<Transporte><Patente>ABCD12</Patente><PatenteCarro>XY1234</PatenteCarro><RUTTrans>76192083-9</RUTTrans><Chofer><RUTChofer>11111111-1</RUTChofer><NombreChofer>Juana Pérez Soto</NombreChofer></Chofer>" +
      "<DirDest>Bodega Quilicura 300</DirDest><CmnaDest>Quilicura</CmnaDest><FchSalida>2026-11-20</FchSalida><HraSalida>08:30:00</HraSalida><FchLlegada>2026-11-21</FchLlegada></Transporte>",
    detalle: "<QtyItem>10</QtyItem><UnmdItem>UN</UnmdItem><PrcItem>1000</PrcItem>",
  };

  it("reads a guía with the v2.5 transport fields as one without them (formatos/json, envios/verificar)", async () => {
    const { post } = await setup();
    const juana = await parseCertificateCredential(juanaCert, new Date());
    const xml = bytesToBase64(
      await signedEnvelope(juana, COMPANY, [{ tipo: 52, folio: 1, receptor: "60803000-K", total: 11_900, xml: TRANSFER_XML }]),
    );
    const { data } = await answerOf(await post(FORMATOS, { xml }), Normalized);
    if (!("documentos" in data)) throw new Error("answered as json");
    const transporte = ((data.documentos[0]?.dte.Encabezado ?? {}) as Node).Transporte;
    expect(transporte).toMatchObject({ PatenteCarro: "XY1234", FchSalida: "2026-11-20", HraSalida: "08:30:00", FchLlegada: "2026-11-21" });
    expect(data.documentos[0]?.warnings.filter((w) => w.includes("154/2025"))).toEqual([]);
    const verified = await answerOf(await post("/api/v1/platform/dte/envios/verificar", { xml }), Verified);
    expect(verified.data.documentos[0]?.firma).toEqual({ valido: true, motivo: null });
  });

  it("rejects a guía dated from the switch without its transfer data, naming each missing tag, and accepts the others", async () => {
    const { post, later, sandbox } = await setup();
    folioBook(sandbox.state, "0", COMPANY, 52).ranges.push({ desde: 1, hasta: 50, fecha: "2026-01-05", mandatario: "11111111-1" });
    const juana = await parseCertificateCredential(juanaCert, new Date());
    const docs: TestDocument[] = [
      { tipo: 52, folio: 1, receptor: "60803000-K", total: 11_900, xml: TRANSFER_XML },
      { tipo: 52, folio: 2, receptor: "60803000-K", total: 11_900, fchEmis: "2026-11-01", xml: { idDoc: "<IndTraslado>1</IndTraslado>" } },
      { tipo: 52, folio: 3, receptor: "60803000-K", total: 11_900, fchEmis: "2026-10-31" },
    ];
    const sent = await answerOf(
      await post(ENVIAR, { auth: { cert: juanaCert }, xml: bytesToBase64(await signedEnvelope(juana, COMPANY, docs)) }),
      Sent,
    );
    later(4 * ENVIO_STEP_MS + 100);
    const trackId = sent.data.track_id ?? "";
    const estado = await answerOf(
      await post(`/api/v1/platform/dte/envios/estado/${COMPANY}/${trackId}`, { auth: { cert: juanaCert } }),
      Status,
    );
    expect(estado.data).toMatchObject({
      estado: "EPR",
      resultado: "rechazado",
      documentos: [{ tipo: 52, informados: 3, aceptados: 2, rechazados: 1 }],
    });
    const verdicts = sandbox.state.envios.get(trackId)?.documents;
    expect(verdicts?.map((d) => [d.folio, d.estado])).toEqual([
      [1, "DOK"],
      [2, "RCH"],
      [3, "DOK"],
    ]);
    const motivo = verdicts?.[1]?.motivo ?? "";
    expect(motivo).toBe(
      "Traslado de bienes (Res. Ex. SII 154/2025, desde 2026-11-01): falta Encabezado/Emisor/DirOrigen; falta Encabezado/Emisor/CmnaOrigen; " +
        "falta Encabezado/Transporte/DirDest; falta Encabezado/Transporte/CmnaDest; falta Encabezado/Transporte/Chofer/RUTChofer; " +
        "falta Encabezado/Transporte/Chofer/NombreChofer; falta Encabezado/Transporte/RUTTrans; falta Encabezado/Transporte/Patente; " +
        "falta Detalle[1]/QtyItem; falta Detalle[1]/UnmdItem; falta Detalle[1]/PrcItem",
    );
    // No numbered code of the SII's is invented for it.
    expect(motivo).not.toMatch(/^[A-Z]{3}-\d/);
  });
});
