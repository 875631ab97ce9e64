// The SII's ranges for the DTE's numbers (DTE_v10.xsd, SiiTypes_v10.xsd): a number sent beyond its
// range is a 422 naming it with the range, an amount computed beyond one (quantity × price) a 400
// naming the fields it came from, and RUT 0 is refused where a RUT is read. The first cases are
// what `FUZZ_SEED=424242 npm run fuzz` found: a PrcItem of 1e308 answered about a MontoItem never
// sent, and `folios/0-0/34` read as a RUT.
import { describe, expect, it } from "vitest";
import { BOLETA_NUMBER_BOUNDS, NUMBER_BOUNDS } from "../../src/dte/normalize/bounds.ts";
import { NUMERIC_FIELDS } from "../../src/dte/normalize/fields.ts";
import { bytesToBase64 } from "../../src/lib/encoding.ts";
import { EXAMPLE_CAF, EXAMPLE_ISSUER } from "../../src/routes/example-documents.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { errorOf, valueAt } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const FORMATOS = "/api/v1/platform/dte/formatos/json";
const GENERAR = "/api/v1/platform/dte/documentos/generar";
const juanaCert = { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem };

async function setup() {
  const t = probeApp();
  const token = await tokenFor(t.deps, { scopes: ["sii:read", "sii:write"] });
  return { ...t, post: (path: string, body: unknown) => postJson(t.app, token.secret, path, body) };
}

/** An exempt invoice (34, the example CAF's type) with one line. */
const invoice = (line: Record<string, unknown>, more: Record<string, unknown> = {}) => ({
  Encabezado: {
    IdDoc: { TipoDTE: 34, Folio: 1 },
    Emisor: EXAMPLE_ISSUER,
    Receptor: { RUTRecep: "22222222-2", RznSocRecep: "Pedro Pérez", GiroRecep: "Servicios", DirRecep: "Calle Uno 1", CmnaRecep: "Ñuñoa" },
  },
  Detalle: [{ NmbItem: "Asesoría", ...line }],
  ...more,
});
const generar = (dte: unknown) => ({ auth: { cert: juanaCert }, dte, caf: EXAMPLE_CAF, resolucion: { fecha: "2014-08-22", numero: 80 } });

/** Each field error of a refusal as `path: message`. */
async function refusal(res: Response) {
  const body = await errorOf(res);
  return { status: res.status, code: body.error_code, errors: (body.errors ?? []).map((e) => `${e.path}: ${e.message}`) };
}

describe("a number sent beyond the SII's range is refused naming it, with the range", () => {
  for (const field of ["PrcItem", "QtyItem"]) {
    it(`${field} 1e308 in formatos/json and in generar: 422 naming dte.Detalle[0].${field}`, async () => {
      const { post } = await setup();
      const line = { QtyItem: 1, PrcItem: 1000, [field]: 1e308 };
      for (const res of [await post(FORMATOS, { dte: invoice(line) }), await post(GENERAR, generar(invoice(line)))]) {
        const { status, code, errors } = await refusal(res);
        expect([status, code]).toEqual([422, "VALIDATION_ERROR"]);
        expect(errors).toEqual([
          `dte.Detalle[0].${field}: 1e+308 is outside the SII's range for ${field}, 0 to 999999999999.999999 (Dec12_6Type)`,
        ]);
      }
    });
  }

  it("in a list of documents, as digits, in a single-object Detalle and in the totals alike", async () => {
    const { post } = await setup();
    const listed = await refusal(await post(GENERAR, generar([invoice({ QtyItem: 1, PrcItem: 1 }), invoice({ PrcItem: 1e13 })])));
    expect(listed.status).toBe(422);
    expect(listed.errors).toEqual([expect.stringMatching(/^dte\[1\]\.Detalle\[0\]\.PrcItem: 10000000000000 is outside/)]);
    const doc = { ...invoice({}), Detalle: { NmbItem: "x", QtyItem: "1", PrcItem: "12345678901234567890" } };
    const digits = await refusal(await post(FORMATOS, { dte: doc }));
    expect(digits.errors).toEqual([expect.stringMatching(/^dte\.Detalle\.PrcItem: "12345678901234567890" is outside the SII's range/)]);
    const totals = invoice({ QtyItem: 1, PrcItem: 1 });
    Object.assign(totals.Encabezado, { Totales: { MntExe: 1e18, MntTotal: 1e18 } });
    const total = await refusal(await post(FORMATOS, { dte: totals }));
    expect(total.errors).toEqual([
      "dte.Encabezado.Totales.MntExe: 1000000000000000000 is outside the SII's range for MntExe, 0 to 999999999999999999 (MontoType)",
      "dte.Encabezado.Totales.MntTotal: 1000000000000000000 is outside the SII's range for MntTotal, 0 to 999999999999999999 (MontoType)",
    ]);
  });

  it("percentages: a discount up to 100, a surcharge up to 999.99; a boleta's up to 100, the engine's 400 (it depends on the type)", async () => {
    const { post } = await setup();
    const discount = await refusal(await post(FORMATOS, { dte: invoice({ QtyItem: 1, PrcItem: 10, DescuentoPct: 100.5 }) }));
    expect(discount.status).toBe(422);
    expect(discount.errors).toEqual([
      expect.stringMatching(/^dte\.Detalle\[0\]\.DescuentoPct: 100\.5 is outside .* 0 to 100 \(PctType\)$/),
    ]);
    const surcharge = await refusal(await post(FORMATOS, { dte: invoice({ QtyItem: 1, PrcItem: 10, RecargoPct: 1000 }) }));
    expect([surcharge.status, surcharge.errors]).toEqual([
      422,
      ["dte.Detalle[0].RecargoPct: 1000 is outside the SII's range for RecargoPct, 0 to 999.99 (PctType)"],
    ]);
    const factura = await post(FORMATOS, { dte: invoice({ QtyItem: 1, PrcItem: 10, RecargoPct: 150 }) });
    expect(factura.status).toBe(200);
    const boleta = invoice({ QtyItem: 1, PrcItem: 10, RecargoPct: 150 });
    boleta.Encabezado.IdDoc.TipoDTE = 39;
    const refused = await refusal(await post(FORMATOS, { dte: boleta }));
    expect([refused.status, refused.errors]).toEqual([
      400,
      ["dte.Detalle[0].RecargoPct: 150 is outside the SII's range for RecargoPct, 0 to 100 (PctType)"],
    ]);
  });

  it("from XML too (formatos/json's xml): a 400 naming the document's field", async () => {
    const { post } = await setup();
    const xml = `<DTE version="1.0"><Documento ID="F1T33"><Encabezado><IdDoc><TipoDTE>33</TipoDTE><Folio>1</Folio><FchEmis>2026-11-20</FchEmis></IdDoc>
<Emisor><RUTEmisor>76192083-9</RUTEmisor><RznSoc>Ejemplo</RznSoc><GiroEmis>Comercio</GiroEmis><Acteco>479100</Acteco></Emisor>
<Receptor><RUTRecep>60803000-K</RUTRecep><RznSocRecep>SII</RznSocRecep></Receptor><Totales><MntNeto>0</MntNeto></Totales></Encabezado>
<Detalle><NroLinDet>1</NroLinDet><NmbItem>x</NmbItem><QtyItem>1</QtyItem><PrcItem>${"9".repeat(400)}</PrcItem></Detalle></Documento></DTE>`;
    const { status, errors } = await refusal(await post(FORMATOS, { xml: bytesToBase64(new TextEncoder().encode(xml)) }));
    expect(status).toBe(400);
    expect(errors).toEqual([
      expect.stringMatching(/^xml\.documentos\[0\]\.Detalle\[0\]\.PrcItem: Infinity is outside the SII's range for PrcItem/),
    ]);
  });
});

describe("an amount computed beyond the SII's range is refused naming the fields sent", () => {
  const huge = { QtyItem: 999_999_999_999, PrcItem: 999_999_999_999 };
  const message = (field: string) =>
    `dte.Detalle[0].${field}: makes the line's amount 9.99999999998e+23 (QtyItem × PrcItem, less discounts, plus surcharges), beyond the SII's range for MontoItem, 0 to 999999999999999999 (MontoType)`;

  it("QtyItem × PrcItem over 18 digits, each within its own: a 400 naming both, in formatos/json and generar", async () => {
    const { post } = await setup();
    for (const res of [await post(FORMATOS, { dte: invoice(huge) }), await post(GENERAR, generar(invoice(huge)))]) {
      const { status, code, errors } = await refusal(res);
      expect([status, code]).toEqual([400, "VALIDATION_ERROR"]);
      expect(errors).toEqual([message("QtyItem"), message("PrcItem")]);
    }
  });

  it("lines within range adding up beyond it: a 400 naming Detalle; a total computed from totals names what it came from", async () => {
    const { post } = await setup();
    const line = { NmbItem: "x", MontoItem: 600_000_000_000_000_000 };
    const sum = await refusal(await post(FORMATOS, { dte: { ...invoice({}), Detalle: [line, line] } }));
    expect([sum.status, sum.errors]).toEqual([
      400,
      [
        "dte.Detalle: the lines' MontoItem add up to 1200000000000000000, beyond the SII's range for MntExe, 0 to 999999999999999999 (MontoType)",
      ],
    ]);
    const factura = invoice({ QtyItem: 1, PrcItem: 1 });
    factura.Encabezado.IdDoc.TipoDTE = 33;
    Object.assign(factura.Encabezado, { Totales: { MntNeto: 900_000_000_000_000_000 } });
    const total = await refusal(await post(FORMATOS, { dte: factura }));
    expect(total.status).toBe(400);
    expect(total.errors).toEqual([
      expect.stringMatching(/^dte\.Encabezado\.Totales\.MntTotal: computed from MntNeto, IVA, .*: \d+ is outside/),
    ]);
  });
});

describe("RUT 0 is no RUT", () => {
  for (const rut of ["0-0", "0-K"]) {
    it(`folios/${rut}/34: a 400 naming the path parameter, before the CAF is read`, async () => {
      const { post } = await setup();
      const { status, code, errors } = await refusal(await post(`/api/v1/platform/dte/folios/${rut}/34`, { caf: EXAMPLE_CAF }));
      expect([status, code]).toEqual([400, "VALIDATION_ERROR"]);
      expect(errors).toEqual(["emisor: RUT has the body 0, which is no taxpayer's RUT"]);
    });
  }

  it("inside a document, as any other RUT the engine reads", async () => {
    const { post } = await setup();
    const doc = invoice({ QtyItem: 1, PrcItem: 1 });
    doc.Encabezado.Receptor.RUTRecep = "0-0";
    const { status, errors } = await refusal(await post(FORMATOS, { dte: doc }));
    expect([status, errors]).toEqual([
      400,
      [`dte.Encabezado.Receptor.RUTRecep: "0-0" is not a valid RUT: it has the body 0, which is no taxpayer's RUT`],
    ]);
  });
});

describe("the bounds table", () => {
  it("bounds only tags the sanitizer reads as numbers (so XML and computed values meet the same check)", () => {
    const tags = [...Object.keys(NUMBER_BOUNDS), ...Object.keys(BOLETA_NUMBER_BOUNDS)];
    expect(tags.filter((tag) => !NUMERIC_FIELDS.has(tag))).toEqual([]);
    expect(tags.length).toBeGreaterThan(60);
  });

  it("stating the lines' numbers changes nothing else: an item that is no object is still the engine's to drop", async () => {
    const { post } = await setup();
    const res = await post(FORMATOS, {
      dte: { ...invoice({ QtyItem: 2, PrcItem: 10 }), Detalle: [5, { NmbItem: "x", QtyItem: 2, PrcItem: 10 }] },
    });
    expect(res.status).toBe(200);
  });

  it("the document states the line's and the totals' ranges", async () => {
    const { app } = await setup();
    const doc = await (await app.request("/openapi.json")).json();
    const document = valueAt(doc, "components", "schemas", "DocumentToSign", "properties");
    const detalle = (tag: string) => valueAt(document, "Detalle", "anyOf", 0, "properties", tag);
    expect(detalle("PrcItem")).toMatchObject({ type: "number", minimum: 0, exclusiveMaximum: 1e12 });
    expect(detalle("DescuentoPct")).toMatchObject({ type: "number", minimum: 0, maximum: 100 });
    const totales = (tag: string) => valueAt(document, "Encabezado", "properties", "Totales", "properties", tag);
    expect(totales("MntTotal")).toMatchObject({ type: "number", minimum: 0, exclusiveMaximum: 1e18 });
    expect(totales("MontoNF")).toMatchObject({ type: "number", exclusiveMinimum: -1e18, exclusiveMaximum: 1e18 });
  });
});
