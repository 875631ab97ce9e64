// POST /api/v1/platform/dte/formatos/json through the gateway: JSON or XML input, sanitizing,
// refusals naming the field, and security.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bytesToBase64 } from "../../src/lib/encoding.ts";
import { encodeLatin1 } from "../../src/lib/latin1.ts";
import { Normalized } from "../../src/routes/documentos/formatos-json.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { answerOf, errorOf, valueAt } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";
import { fixturePath } from "../support/fixtures.ts";

const PATH = "/api/v1/platform/dte/formatos/json";

/** The answer to a `dte` input: the normalized document and its warnings. */
async function normalizedDte(res: Response) {
  const { data } = await answerOf(res, Normalized);
  if (!("dte" in data)) throw new Error(`a dte input was answered as an xml one: ${JSON.stringify(data).slice(0, 200)}`);
  return data;
}

/** The answer to an `xml` input: what the XML was, and each document. */
async function normalizedXml(res: Response) {
  const { data } = await answerOf(res, Normalized);
  if (!("documentos" in data)) throw new Error(`an xml input was answered as a dte one: ${JSON.stringify(data).slice(0, 200)}`);
  return data;
}
async function setup() {
  const t = probeApp();
  const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
  const post = (body: unknown) => postJson(t.app, token.secret, PATH, body);
  return { ...t, post };
}

const latin1Base64 = (xml: string) => bytesToBase64(encodeLatin1(xml));

// An item name of 79 characters up to its last space before the 80th, and what follows it.
const LONG_NAME = "Cable UTP categoría 6 para interiores, carrete de 305 metros, color gris, marca";
const NAME_REST = "Genérica con certificación";

const dteXml = (folio: number, rut = "76192083-9") => `<DTE version="1.0"><Documento ID="F${folio}T33">
<Encabezado><IdDoc><TipoDTE>33</TipoDTE><Folio>${folio}</Folio><FchEmis>2026-11-20</FchEmis></IdDoc>
<Emisor><RUTEmisor>${rut}</RUTEmisor><RznSoc>Ñandú &#8220;Sur&#8221; Ltda</RznSoc><GiroEmis>Comercio</GiroEmis><Acteco>479100</Acteco></Emisor>
<Receptor><RUTRecep>60803000-K</RUTRecep><RznSocRecep>Servicio de Impuestos Internos</RznSocRecep></Receptor>
<Totales><MntNeto>0</MntNeto></Totales></Encabezado>
<Detalle><NroLinDet>1</NroLinDet><NmbItem>Conectores RJ45</NmbItem><QtyItem>450</QtyItem><PrcItem>70</PrcItem></Detalle>
<TED version="1.0"><DD><F>${folio}</F></DD></TED><TmstFirma>2026-11-20T10:00:00</TmstFirma>
</Documento></DTE>`;

describe("normalize to the standard format: JSON input", () => {
  it("returns the normalized document and what changed, charging 1 unit and contacting no one", async () => {
    const { post, deps } = await setup();
    const res = await post({
      dte: { Encabezado: { IdDoc: { TipoDTE: 33, Folio: 1 } }, Detalle: { NmbItem: "Conectores RJ45", QtyItem: 450, PrcItem: 70 } },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-quota-units")).toBe("1");
    const data = await normalizedDte(res);
    expect(valueAt(data.dte, "Encabezado", "Totales")).toEqual({ MntNeto: 31500, TasaIVA: 19, IVA: 5985, MntTotal: 37485 });
    expect(valueAt(data.dte, "Encabezado", "IdDoc", "FchEmis")).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(data.warnings).toContain("Encabezado.Totales.MntTotal = 37485");
    expect(simulatorOf(deps.sii).state.calls.size).toBe(0);
  });

  it("sanitizes text and RUTs and says so", async () => {
    const { post } = await setup();
    const res = await post({
      dte: {
        Encabezado: {
          IdDoc: { TipoDTE: 33 },
          Emisor: { RUTEmisor: "76.192.083-9", RznSoc: "A\tB" },
          Receptor: { GiroRecep: "g".repeat(50) },
        },
        Detalle: { NmbItem: "Café ☕", PrcItem: 100 },
      },
    });
    const data = await normalizedDte(res);
    expect(valueAt(data.dte, "Encabezado", "Emisor")).toEqual({ RUTEmisor: "76192083-9", RznSoc: "A B" });
    expect(valueAt(data.dte, "Encabezado", "Receptor", "GiroRecep")).toBe("g".repeat(40));
    expect(valueAt(data.dte, "Detalle", 0, "NmbItem")).toBe("Café");
    expect(data.warnings).toEqual(
      expect.arrayContaining([
        'Encabezado.Emisor.RUTEmisor = "76192083-9" (RUT written as digits, hyphen and check digit)',
        "Encabezado.Receptor.GiroRecep truncated to 40 characters (the schema's maximum)",
      ]),
    );
  });

  it("answers 400 for a type it does not normalize and 422 for a body without a type", async () => {
    const { post } = await setup();
    const unknown = await post({ dte: { Encabezado: { IdDoc: { TipoDTE: 99 } } } });
    expect(unknown.status).toBe(400);
    expect((await errorOf(unknown)).errors?.[0]?.path).toBe("dte.Encabezado.IdDoc.TipoDTE");
    const missing = await post({ dte: { Encabezado: {} } });
    expect(missing.status).toBe(422);
    expect((await errorOf(missing)).errors?.[0]?.path).toBe("dte.Encabezado.IdDoc");
  });

  it("a factura exenta (34) without IndExe on its lines answers exempt lines and totals without IVA", async () => {
    const { post } = await setup();
    const res = await post({
      dte: { Encabezado: { IdDoc: { TipoDTE: 34, Folio: 1 } }, Detalle: { NmbItem: "Asesoría", QtyItem: 2, PrcItem: 5000 } },
    });
    expect(res.status).toBe(200);
    const data = await normalizedDte(res);
    expect(valueAt(data.dte, "Detalle", 0)).toMatchObject({ IndExe: 1, MontoItem: 10000 });
    expect(valueAt(data.dte, "Encabezado", "Totales")).toEqual({ MntExe: 10000, MntTotal: 10000 });
    expect(data.warnings).toContain("Detalle[0].IndExe = 1");
  });

  it("a liquidación-factura (43) answers its commissions completed and a total net of them", async () => {
    const { post } = await setup();
    const res = await post({
      dte: {
        Encabezado: { IdDoc: { TipoDTE: "43", Folio: 1 } },
        Detalle: { TpoDocLiq: "33", NmbItem: "Venta por cuenta de terceros", QtyItem: 1, PrcItem: 100_000 },
        Comisiones: { Glosa: "Comisión de venta", TasaComision: 5 },
      },
    });
    expect(res.status).toBe(200);
    const data = await normalizedDte(res);
    expect(valueAt(data.dte, "Comisiones")).toEqual([
      { NroLinCom: 1, TipoMovim: "C", Glosa: "Comisión de venta", TasaComision: 5, ValComNeto: 5000, ValComExe: 0, ValComIVA: 950 },
    ]);
    expect(valueAt(data.dte, "Encabezado", "Totales")).toMatchObject({
      MntNeto: 100_000,
      IVA: 19_000,
      Comisiones: { ValComNeto: 5000, ValComExe: 0, ValComIVA: 950 },
      MntTotal: 113_050,
    });
    expect(data.warnings).toContain("Comisiones[0].ValComIVA = 950");
  });

  it("a credit note correcting text (CodRef 2) whose line has PrcItem false answers zero amounts", async () => {
    const { post } = await setup();
    const res = await post({
      dte: {
        Encabezado: { IdDoc: { TipoDTE: 61, Folio: 1 }, Totales: { MntNeto: 0, TasaIVA: 19, IVA: 0, MntTotal: 0 } },
        Detalle: [{ NmbItem: "Corrige giro", QtyItem: 1, PrcItem: false }],
        Referencia: [
          { TpoDocRef: 33, FolioRef: "1", FchRef: "2026-11-02", CodRef: 2, RazonRef: "Donde dice Comercio debe decir Servicios" },
        ],
      },
    });
    expect(res.status).toBe(200);
    const data = await normalizedDte(res);
    expect(valueAt(data.dte, "Detalle")).toEqual([{ NmbItem: "Corrige giro", QtyItem: 1, NroLinDet: 1, MontoItem: 0 }]);
    expect(valueAt(data.dte, "Encabezado", "Totales")).toEqual({ MntNeto: 0, MntExe: 0, IVA: 0, MntTotal: 0 });
    expect(data.warnings).toContain("Detalle[0].PrcItem removed (false: no value)");
  });

  it("answers 400 VALIDATION_ERROR naming each value that cannot be fixed", async () => {
    const { post } = await setup();
    const res = await post({
      dte: {
        Encabezado: { IdDoc: { TipoDTE: 33, FchEmis: "2026-02-30" }, Emisor: { RUTEmisor: "76192083-1" } },
        Detalle: { NmbItem: "A", QtyItem: -2, PrcItem: 1 },
      },
    });
    expect(res.status).toBe(400);
    const body = await errorOf(res);
    expect(body.error_code).toBe("VALIDATION_ERROR");
    expect(body.errors?.map((e) => e.path)).toEqual([
      "dte.Encabezado.IdDoc.FchEmis",
      "dte.Encabezado.Emisor.RUTEmisor",
      "dte.Detalle[0].QtyItem",
    ]);
  });

  it("an item name past 80 characters goes on in DscItem (Res. Ex. SII 36/2024), with a warning naming the line", async () => {
    const { post } = await setup();
    const res = await post({
      dte: {
        Encabezado: { IdDoc: { TipoDTE: 33, Folio: 1 } },
        Detalle: [
          { NmbItem: "Conectores RJ45", QtyItem: 1, PrcItem: 70 },
          { NmbItem: `${LONG_NAME} ${NAME_REST}`, DscItem: "Caja de 100", QtyItem: 1, PrcItem: 70 },
        ],
      },
    });
    expect(res.status).toBe(200);
    const data = await normalizedDte(res);
    expect(valueAt(data.dte, "Detalle", 1)).toMatchObject({ NmbItem: LONG_NAME, DscItem: `${NAME_REST} Caja de 100` });
    expect(data.warnings.filter((w) => w.includes("NmbItem"))).toEqual([
      `Detalle[1].NmbItem cut to ${LONG_NAME.length} characters, "${NAME_REST}" moved to the start of Detalle[1].DscItem (Res. Ex. SII N° 36 de 2024: a name past 80 characters goes on in DscItem)`,
    ]);
  });

  it("answers 400 naming the item name when its rest would take DscItem past 1000 characters", async () => {
    const { post } = await setup();
    const res = await post({
      dte: {
        Encabezado: { IdDoc: { TipoDTE: 33, Folio: 1 } },
        Detalle: { NmbItem: `${LONG_NAME} ${NAME_REST}`, DscItem: "d".repeat(1000), QtyItem: 1, PrcItem: 70 },
      },
    });
    expect(res.status).toBe(400);
    const body = await errorOf(res);
    expect(body.error_code).toBe("VALIDATION_ERROR");
    expect(body.errors?.map((e) => e.path)).toEqual(["dte.Detalle[0].NmbItem"]);
    expect(body.message).toMatch(/Res\. Ex\. SII N° 36 de 2024.*beyond the schema's 1000/);
  });
});

describe("normalize to the standard format: XML input", () => {
  it("reads a lone ISO-8859-1 DTE into a one-entry list, dropping TED and TmstFirma", async () => {
    const { post } = await setup();
    const res = await post({ xml: latin1Base64(`<?xml version="1.0" encoding="ISO-8859-1"?>\n${dteXml(60)}`) });
    expect(res.status).toBe(200);
    const data = await normalizedXml(res);
    expect(data.sobre).toBe("DTE");
    expect(data.documentos).toHaveLength(1);
    const first = data.documentos[0]!;
    expect([first.tipo, first.folio]).toEqual([33, 60]);
    expect(valueAt(first.dte, "Encabezado", "Emisor", "RznSoc")).toBe('Ñandú "Sur" Ltda');
    expect(valueAt(first.dte, "Encabezado", "Totales")).toEqual({ MntNeto: 31500, TasaIVA: 19, IVA: 5985, MntTotal: 37485 });
    expect(first.dte).not.toHaveProperty("TED");
    expect(first.dte).not.toHaveProperty("TmstFirma");
    expect(first.warnings).toContain("Detalle[0].MontoItem = 31500");
  });

  it("an XML line's item name past 80 characters goes on in its DscItem", async () => {
    const { post } = await setup();
    const xml = `<?xml version="1.0" encoding="ISO-8859-1"?>\n${dteXml(62)}`.replace(
      "<NmbItem>Conectores RJ45</NmbItem>",
      `<NmbItem>${LONG_NAME} ${NAME_REST}</NmbItem>`,
    );
    const first = (await normalizedXml(await post({ xml: latin1Base64(xml) }))).documentos[0]!;
    expect(valueAt(first.dte, "Detalle", 0)).toMatchObject({ NmbItem: LONG_NAME, DscItem: NAME_REST });
    expect(first.warnings.some((w) => w.startsWith("Detalle[0].NmbItem cut to 79 characters"))).toBe(true);
  });

  it("an XML factura exenta (34) whose lines lack IndExe and whose totals carry IVA comes back exempt, without IVA", async () => {
    const { post } = await setup();
    const xml = `<?xml version="1.0" encoding="ISO-8859-1"?>\n${dteXml(61)}`
      .replaceAll("T33", "T34")
      .replace("<TipoDTE>33</TipoDTE>", "<TipoDTE>34</TipoDTE>")
      .replace("<MntNeto>0</MntNeto>", "<MntNeto>31500</MntNeto><TasaIVA>19</TasaIVA><IVA>5985</IVA>");
    const res = await post({ xml: latin1Base64(xml) });
    expect(res.status, (await res.clone().text()).slice(0, 300)).toBe(200);
    const first = (await normalizedXml(res)).documentos[0]!;
    expect([first.tipo, first.folio]).toEqual([34, 61]);
    expect(valueAt(first.dte, "Detalle", 0)).toMatchObject({ IndExe: 1, MontoItem: 31500 });
    expect(valueAt(first.dte, "Encabezado", "Totales")).toEqual({ MntExe: 31500, MntTotal: 31500 });
    expect(first.warnings).toContain("Encabezado.Totales.IVA removed (type 34 carries no IVA)");
  });

  it("answers each DTE of an envelope, in order; UTF-8 without a declaration is read as UTF-8", async () => {
    const { post } = await setup();
    const envio = `<EnvioDTE xmlns="http://www.sii.cl/SiiDte" version="1.0"><SetDTE ID="SetDoc"><Caratula version="1.0"/>${dteXml(1)}${dteXml(2)}</SetDTE></EnvioDTE>`;
    const data = await normalizedXml(await post({ xml: bytesToBase64(new TextEncoder().encode(envio)) }));
    expect(data.sobre).toBe("EnvioDTE");
    expect(data.documentos.map((d) => d.folio)).toEqual([1, 2]);
    expect(valueAt(data.documentos[1]?.dte, "Encabezado", "Emisor", "RznSoc")).toBe('Ñandú "Sur" Ltda');
  });

  it("names the document and field of a value that cannot be fixed", async () => {
    const { post } = await setup();
    const envio = `<?xml version="1.0" encoding="ISO-8859-1"?><EnvioDTE><SetDTE>${dteXml(1)}${dteXml(2, "76192083-0")}</SetDTE></EnvioDTE>`;
    const res = await post({ xml: latin1Base64(envio) });
    expect(res.status).toBe(400);
    const body = await errorOf(res);
    expect(body.errors?.[0]?.path, body.message).toBe("xml.documentos[1].Encabezado.Emisor.RUTEmisor");
  });

  it("refuses malformed XML with its position, a DOCTYPE, non-base64 and a root that is not a DTE, naming xml", async () => {
    const { post } = await setup();
    const cases: [unknown, RegExp][] = [
      [latin1Base64("<DTE><Documento></DTE>"), /end tag <\/DTE> does not match the open <Documento> \(line 1, column 17\)/],
      [latin1Base64('<!DOCTYPE DTE [<!ENTITY a "aaaa">]><DTE>&a;</DTE>'), /DOCTYPE/],
      [latin1Base64("<DTE>&nbsp;</DTE>"), /"&nbsp;" is not one of the five predefined/],
      ["%%% not base64 %%%", /is not base64/],
      [latin1Base64("<Factura/>"), /root element is <Factura>/],
      [latin1Base64('<?xml version="1.0" encoding="UTF-8"?><DTE>Ñ</DTE>'), /not valid UTF-8/],
    ];
    for (const [xml, message] of cases) {
      const res = await post({ xml });
      const body = await errorOf(res);
      expect([res.status, body.error_code, body.errors?.[0]?.path], String(xml)).toEqual([400, "VALIDATION_ERROR", "xml"]);
      expect(body.errors?.[0]?.message).toMatch(message);
    }
  });

  it("answers 400 naming dte and xml when both or neither are given", async () => {
    const { post } = await setup();
    for (const body of [{}, { dte: { Encabezado: { IdDoc: { TipoDTE: 33 } } }, xml: latin1Base64(dteXml(1)) }]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect((await errorOf(res)).errors?.map((e: { path: string }) => e.path)).toEqual(["dte", "xml"]);
    }
  });

  const example = fixturePath("real-documents", "sii-example", "F60T33-ejemplo-oficial-SII.xml");
  it("normalizes the SII's official EnvioDTE example to its own totals", async () => {
    const { post } = await setup();
    const data = await normalizedXml(await post({ xml: bytesToBase64(readFileSync(example)) }));
    expect(data.sobre).toBe("EnvioDTE");
    expect(valueAt(data.documentos[0]?.dte, "Encabezado", "Totales")).toEqual({
      MntNeto: 100000,
      TasaIVA: 19,
      IVA: 19000,
      MntTotal: 119000,
    });
    expect(valueAt(data.documentos[0]?.dte, "Encabezado", "Receptor", "RznSocRecep")).toBe("EMPRESA  LTDA");
  });
});

describe("normalize to the standard format: security", () => {
  it("needs a token (401) with sii:read (403)", async () => {
    const { app, deps } = await setup();
    const body = { dte: { Encabezado: { IdDoc: { TipoDTE: 33 } } } };
    const anonymous = await app.request(PATH, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(anonymous.status).toBe(401);
    const settingsOnly = await tokenFor(deps, { scopes: ["settings:read"] });
    const forbidden = await postJson(app, settingsOnly.secret, PATH, body);
    expect([forbidden.status, (await errorOf(forbidden)).error_code]).toEqual([403, "INSUFFICIENT_SCOPE"]);
  });
});
