// The documents, submissions, exchanges, folios and certification operations: the OpenAPI document
// is as strict as the server. Each request of the table is sent to the app (over the sandbox) and
// validated against the document's schemas for its operation with a JSON Schema 2020-12
// validator; a request the server refuses for its shape must be one the schema refuses, and a
// request the schema accepts must be one the server serves. The examples these operations show are
// the sandbox's own: its CAF-signing key signed the example CAF, and the example envelope verifies.
import { describe, expect, it } from "vitest";
import { readCaf } from "../../src/dte/generate/caf.ts";
import { inspectEnvelope } from "../../src/dte/verify/envelope.ts";
import { verifyStamp } from "../../src/dte/verify/timbre.ts";
import { base64ToBytes } from "../../src/lib/encoding.ts";
import { EXAMPLE_PFX } from "../../src/routes/example-credentials.ts";
import { EXAMPLE_CAF, EXAMPLE_ENVELOPE, EXAMPLE_EXEMPT_INVOICE, EXAMPLE_INVOICE } from "../../src/routes/example-documents.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { sandboxCafPublicKey } from "../../src/sandbox/folios-caf.ts";
import { SANDBOX_SUPPLIER } from "../../src/sandbox/intercambios.ts";
import { errorOf } from "../support/answers.ts";
import { probeApp, tokenFor } from "../support/app.ts";
import { servedDocument, validatorsFor } from "../support/openapi-schema.ts";

const doc = await servedDocument();
const v = validatorsFor(doc);

const COMPANY = "76192083-9";
const auth = { cert: EXAMPLE_PFX };
const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
const pem = { "cert-data": juana.certPem, "pkey-data": juana.keyPem };
const lines = (n: number) => Array.from({ length: n }, (_, i) => ({ NmbItem: `A${i}`, QtyItem: 1, PrcItem: 10 }));
const withType = (tipo: unknown) => ({
  ...EXAMPLE_INVOICE,
  Encabezado: { ...EXAMPLE_INVOICE.Encabezado, IdDoc: { TipoDTE: tipo, Folio: 1 } },
});
const received = (over: Record<string, unknown> = {}) => ({ emisor: SANDBOX_SUPPLIER, dte: 33, folio: 1001, accion: "ACD", ...over });
/** A 2 × 2 RGB PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGNQcGgAIgYIBQAXDgOBobd1AQAAAABJRU5ErkJggg==";
const exempt = (idDoc: Record<string, unknown>) => ({
  ...EXAMPLE_EXEMPT_INVOICE,
  Encabezado: { ...EXAMPLE_EXEMPT_INVOICE.Encabezado, IdDoc: { ...EXAMPLE_EXEMPT_INVOICE.Encabezado.IdDoc, ...idDoc } },
});
const generar = (over: Record<string, unknown> = {}) => ({
  auth,
  dte: EXAMPLE_EXEMPT_INVOICE,
  caf: EXAMPLE_CAF,
  resolucion: { fecha: "2014-08-22", numero: 80 },
  ...over,
});

interface Case {
  /** What the request is, for the failure message. */
  what: string;
  operationId: string;
  path?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  /** Whether the request's shape is one the operation takes (the server then serves it: 2xx). */
  valid: boolean;
}

const CASES: Case[] = [
  // formatos/json: `dte` or `xml`, exactly one; the types it normalizes; base64 XML.
  { what: "a dte", operationId: "post_platform_dte_formatos_json", body: { dte: EXAMPLE_INVOICE }, valid: true },
  // TipoDTE as digits ("33") is a tolerance the server keeps for ERPs and the document's description states; the
  // document itself gives the integer form only, the one every client generator types well (issue 34).
  { what: "TipoDTE as an integer", operationId: "post_platform_dte_formatos_json", body: { dte: withType(33) }, valid: true },
  { what: "an xml", operationId: "post_platform_dte_formatos_json", body: { xml: EXAMPLE_ENVELOPE }, valid: true },
  { what: "neither dte nor xml", operationId: "post_platform_dte_formatos_json", body: {}, valid: false },
  {
    what: "dte and xml together",
    operationId: "post_platform_dte_formatos_json",
    body: { dte: EXAMPLE_INVOICE, xml: EXAMPLE_ENVELOPE },
    valid: false,
  },
  { what: "an empty xml", operationId: "post_platform_dte_formatos_json", body: { xml: "" }, valid: false },
  { what: "xml that is not base64", operationId: "post_platform_dte_formatos_json", body: { xml: "<DTE/>" }, valid: false },
  {
    what: "base64 with line breaks",
    operationId: "post_platform_dte_formatos_json",
    body: { xml: EXAMPLE_ENVELOPE.replace(/(.{76})/g, "$1\r\n") },
    valid: true,
  },
  { what: "a type it does not normalize", operationId: "post_platform_dte_formatos_json", body: { dte: withType(99) }, valid: false },
  { what: "43 (a liquidación-factura)", operationId: "post_platform_dte_formatos_json", body: { dte: withType(43) }, valid: true },
  { what: "TipoDTE as words", operationId: "post_platform_dte_formatos_json", body: { dte: withType("treinta") }, valid: false },
  { what: "TipoDTE true", operationId: "post_platform_dte_formatos_json", body: { dte: withType(true) }, valid: false },
  {
    what: "1001 Detalle lines",
    operationId: "post_platform_dte_formatos_json",
    body: { dte: { ...EXAMPLE_INVOICE, Detalle: lines(1001) } },
    valid: false,
  },
  // documentos/generar
  { what: "the example", operationId: "post_platform_dte_documentos_generar", body: generar(), valid: true },
  {
    what: "a type it does not sign",
    operationId: "post_platform_dte_documentos_generar",
    body: generar({ dte: withType(99) }),
    valid: false,
  },
  {
    what: "2001 documents, one more than an EnvioDTE carries",
    operationId: "post_platform_dte_documentos_generar",
    body: generar({ dte: Array.from({ length: 2001 }, () => EXAMPLE_EXEMPT_INVOICE) }),
    valid: false,
  },
  { what: "an empty list", operationId: "post_platform_dte_documentos_generar", body: generar({ dte: [] }), valid: false },
  {
    what: "taken as given without a date or total",
    operationId: "post_platform_dte_documentos_generar",
    body: generar({ normalizar: false }),
    valid: false,
  },
  {
    what: "taken as given, complete",
    operationId: "post_platform_dte_documentos_generar",
    body: generar({
      normalizar: false,
      dte: [
        {
          ...EXAMPLE_EXEMPT_INVOICE,
          Encabezado: {
            ...EXAMPLE_EXEMPT_INVOICE.Encabezado,
            IdDoc: { TipoDTE: 34, Folio: 1, FchEmis: "2026-11-20" },
            Totales: { MntExe: 120000, MntTotal: 120000 },
          },
          Detalle: [{ NroLinDet: 1, IndExe: 1, NmbItem: "Asesoría contable", QtyItem: 1, PrcItem: 120000, MontoItem: 120000 }],
        },
      ],
    }),
    valid: true,
  },
  {
    what: "a CAF neither XML nor base64",
    operationId: "post_platform_dte_documentos_generar",
    body: generar({ caf: "CAF #1" }),
    valid: false,
  },
  {
    what: "the CAF as XML",
    operationId: "post_platform_dte_documentos_generar",
    body: generar({ caf: new TextDecoder("latin1").decode(base64ToBytes(EXAMPLE_CAF)) }),
    valid: true,
  },
  {
    what: "a folio as digits",
    operationId: "post_platform_dte_documentos_generar",
    body: generar({ dte: exempt({ Folio: "1" }) }),
    valid: true,
  },
  {
    what: "no folio",
    operationId: "post_platform_dte_documentos_generar",
    body: generar({ dte: exempt({ Folio: undefined }) }),
    valid: false,
  },
  { what: "folio 0", operationId: "post_platform_dte_documentos_generar", body: generar({ dte: exempt({ Folio: 0 }) }), valid: false },
  {
    what: "no receiver",
    operationId: "post_platform_dte_documentos_generar",
    body: generar({ dte: { ...EXAMPLE_EXEMPT_INVOICE, Encabezado: { ...EXAMPLE_EXEMPT_INVOICE.Encabezado, Receptor: undefined } } }),
    valid: false,
  },
  {
    what: "a resolution number of 7 digits",
    operationId: "post_platform_dte_documentos_generar",
    body: generar({ resolucion: { fecha: "2014-08-22", numero: 1_000_000 } }),
    valid: false,
  },
  {
    what: "a resolution date not YYYY-MM-DD",
    operationId: "post_platform_dte_documentos_generar",
    body: generar({ resolucion: { fecha: "22-08-2014", numero: 80 } }),
    valid: false,
  },
  {
    what: "receptor_envio not a RUT",
    operationId: "post_platform_dte_documentos_generar",
    body: generar({ receptor_envio: "60803000" }),
    valid: false,
  },
  { what: "auth without cert", operationId: "post_platform_dte_documentos_generar", body: generar({ auth: {} }), valid: false },
  {
    what: "auth with pass and cert",
    operationId: "post_platform_dte_documentos_generar",
    body: generar({ auth: { cert: EXAMPLE_PFX, pass: { rut: COMPANY, clave: "x" } } }),
    valid: false,
  },
  {
    what: "pfx-data with cert-data",
    operationId: "post_platform_dte_documentos_generar",
    body: generar({ auth: { cert: { ...EXAMPLE_PFX, "cert-data": juana.certPem } } }),
    valid: false,
  },
  {
    what: "a certificate as PEM",
    operationId: "post_platform_dte_documentos_generar",
    body: generar({ auth: { cert: pem } }),
    valid: true,
  },
  // documentos/pdf and escpos
  {
    what: "an envelope",
    operationId: "post_platform_dte_documentos_pdf",
    body: { xml: EXAMPLE_ENVELOPE, oficina_sii: "PROVIDENCIA" },
    valid: true,
  },
  { what: "copias 6", operationId: "post_platform_dte_documentos_pdf", body: { xml: EXAMPLE_ENVELOPE, copias: 6 }, valid: false },
  { what: "papel a4", operationId: "post_platform_dte_documentos_pdf", body: { xml: EXAMPLE_ENVELOPE, papel: "a4" }, valid: false },
  {
    what: "an office of 61 characters",
    operationId: "post_platform_dte_documentos_pdf",
    body: { xml: EXAMPLE_ENVELOPE, oficina_sii: "x".repeat(61) },
    valid: false,
  },
  { what: "no xml", operationId: "post_platform_dte_documentos_pdf", body: {}, valid: false },
  { what: "xml not base64", operationId: "post_platform_dte_documentos_pdf", body: { xml: "%%%" }, valid: false },
  {
    what: "a logo not base64",
    operationId: "post_platform_dte_documentos_pdf",
    body: { xml: EXAMPLE_ENVELOPE, logo: "a logo!" },
    valid: false,
  },
  {
    what: "a logo that is no image",
    operationId: "post_platform_dte_documentos_pdf",
    body: { xml: EXAMPLE_ENVELOPE, logo: "aGVsbG8=" },
    valid: false,
  },
  {
    what: "a PNG logo",
    operationId: "post_platform_dte_documentos_pdf",
    body: { xml: EXAMPLE_ENVELOPE, oficina_sii: "PROVIDENCIA", logo: PNG },
    valid: true,
  },
  { what: "an envelope", operationId: "post_platform_dte_documentos_escpos", body: { xml: EXAMPLE_ENVELOPE, papel: "58mm" }, valid: true },
  {
    what: "codepage CP437",
    operationId: "post_platform_dte_documentos_escpos",
    body: { xml: EXAMPLE_ENVELOPE, codepage: "CP437" },
    valid: false,
  },
  // envios
  { what: "an envelope", operationId: "post_platform_dte_envios_verificar", body: { xml: EXAMPLE_ENVELOPE }, valid: true },
  { what: "an empty xml", operationId: "post_platform_dte_envios_verificar", body: { xml: "" }, valid: false },
  { what: "xml not base64", operationId: "post_platform_dte_envios_verificar", body: { xml: "not base64!" }, valid: false },
  {
    what: "a preview",
    operationId: "post_platform_dte_envios_enviar",
    query: { dry_run: "TRUE" },
    body: { auth, xml: EXAMPLE_ENVELOPE },
    valid: true,
  },
  {
    what: "a file name not ending in .xml",
    operationId: "post_platform_dte_envios_enviar",
    query: { dry_run: "true" },
    body: { auth, xml: EXAMPLE_ENVELOPE, archivo: "envio.txt" },
    valid: false,
  },
  {
    what: "dry_run maybe",
    operationId: "post_platform_dte_envios_enviar",
    query: { dry_run: "maybe" },
    body: { auth, xml: EXAMPLE_ENVELOPE },
    valid: false,
  },
  {
    what: "ambiente 2",
    operationId: "post_platform_dte_envios_enviar",
    query: { ambiente: "2", dry_run: "1" },
    body: { auth, xml: EXAMPLE_ENVELOPE },
    valid: false,
  },
  {
    what: "a seeded envelope",
    operationId: "post_platform_dte_envios_estado",
    path: { emisor: COMPANY, track_id: "0260000001" },
    body: { auth },
    valid: true,
  },
  {
    what: "a dotted RUT",
    operationId: "post_platform_dte_envios_estado",
    path: { emisor: "76.192.083-9", track_id: "0260000001" },
    body: { auth },
    valid: true,
  },
  {
    what: "a track id of letters",
    operationId: "post_platform_dte_envios_estado",
    path: { emisor: COMPANY, track_id: "abc" },
    body: { auth },
    valid: false,
  },
  {
    what: "a track id of 16 digits",
    operationId: "post_platform_dte_envios_estado",
    path: { emisor: COMPANY, track_id: "1".repeat(16) },
    body: { auth },
    valid: false,
  },
  {
    what: "a RUT without hyphen",
    operationId: "post_platform_dte_envios_estado",
    path: { emisor: "761920839", track_id: "0260000001" },
    body: { auth },
    valid: false,
  },
  {
    what: "servicio factura",
    operationId: "post_platform_dte_envios_estado",
    path: { emisor: COMPANY, track_id: "0260000001" },
    query: { servicio: "factura" },
    body: { auth },
    valid: false,
  },
  // intercambios
  ...(["cesion", "eventos", "recepcion_sii"] as const).flatMap((name): Case[] => {
    const operationId = `post_platform_dte_intercambios_${name}`;
    const at = (dte: string, folio: string) => ({ emisor: SANDBOX_SUPPLIER, dte, folio });
    return [
      { what: "a received invoice", operationId, path: at("33", "1001"), body: { auth }, valid: true },
      { what: "type 99", operationId, path: at("99", "1001"), body: { auth }, valid: false },
      { what: "folio 0", operationId, path: at("33", "0"), body: { auth }, valid: false },
      { what: "folio of 11 digits", operationId, path: at("33", "12345678901"), body: { auth }, valid: false },
    ];
  }),
  {
    what: "one document",
    operationId: "post_platform_dte_intercambios_respuesta_sii",
    query: { dry_run: "yes" },
    body: { auth, documentos: received() },
    valid: true,
  },
  {
    what: "a list",
    operationId: "post_platform_dte_intercambios_respuesta_sii",
    query: { dry_run: "on" },
    body: { auth, documentos: [received(), received({ folio: 1002, accion: "ERM" })] },
    valid: true,
  },
  ...(
    [
      ["a credit note (no acceptance)", { dte: 61, folio: 3001 }],
      ["type 99", { dte: 99 }],
      ["a folio as text", { folio: "1001" }],
      ["folio 0", { folio: 0 }],
      ["accion OK", { accion: "OK" }],
      ["emisor not a RUT", { emisor: "77123456" }],
    ] as const
  ).map(
    ([what, over]): Case => ({
      what,
      operationId: "post_platform_dte_intercambios_respuesta_sii",
      query: { dry_run: "true" },
      body: { auth, documentos: [received(over)] },
      valid: false,
    }),
  ),
  {
    what: "an empty list",
    operationId: "post_platform_dte_intercambios_respuesta_sii",
    query: { dry_run: "true" },
    body: { auth, documentos: [] },
    valid: false,
  },
  {
    what: "51 documents",
    operationId: "post_platform_dte_intercambios_respuesta_sii",
    query: { dry_run: "true" },
    body: { auth, documentos: Array.from({ length: 51 }, (_, i) => received({ folio: i + 1 })) },
    valid: false,
  },
  // folios
  ...(
    [
      ["10 folios", "33", "10", true],
      ["10 000 folios", "39", "10000", true],
      ["0 folios", "33", "0", false],
      ["10 001 folios", "33", "10001", false],
      ["type 43", "43", "10", true],
      ["type 112", "112", "10", true],
      ["type 35", "35", "10", false],
      ["type 113", "113", "10", false],
      ["type 033", "033", "10", true],
    ] as const
  ).map(
    ([what, dte, cantidad, valid]): Case => ({
      what,
      operationId: "post_sii_dte_caf_solicitar",
      path: { emisor: COMPANY, dte, cantidad },
      query: { dry_run: "true" },
      body: { auth },
      valid,
    }),
  ),
  {
    what: "unused folios",
    operationId: "post_sii_dte_caf_anular",
    path: { emisor: COMPANY, dte: "33", folio_inicial: "91", folio_final: "100" },
    query: { dry_run: "true" },
    body: { auth },
    valid: true,
  },
  {
    what: "folio 0",
    operationId: "post_sii_dte_caf_anular",
    path: { emisor: COMPANY, dte: "33", folio_inicial: "0", folio_final: "100" },
    query: { dry_run: "true" },
    body: { auth },
    valid: false,
  },
  // certificacion
  {
    what: "an application",
    operationId: "post_sii_certificacion_facturas_postular",
    query: { dry_run: "true" },
    body: { auth, email: "contacto@example.cl", software: "ERP", documentos: [33, 61] },
    valid: true,
  },
  ...(
    [
      ["an e-mail without @", { email: "contacto" }],
      ["email_intercambio without @", { email_intercambio: "intercambio.example.cl" }],
      ["type 43 (not offered)", { documentos: [33, 43] }],
      ["no types", { documentos: [] }],
      ["no software", { software: "" }],
      ["a software name of 101 characters", { software: "s".repeat(101) }],
    ] as const
  ).map(
    ([what, over]): Case => ({
      what,
      operationId: "post_sii_certificacion_facturas_postular",
      query: { dry_run: "true" },
      body: { auth, email: "contacto@example.cl", software: "ERP", ...over },
      valid: false,
    }),
  ),
  {
    what: "sets",
    operationId: "post_sii_certificacion_facturas_solicitar_set",
    query: { dry_run: "true" },
    body: { auth, sets: ["SET03"] },
    valid: true,
  },
  {
    what: "a set not SETnn",
    operationId: "post_sii_certificacion_facturas_solicitar_set",
    query: { dry_run: "true" },
    body: { auth, sets: ["SET3"] },
    valid: false,
  },
  {
    what: "a provider e-mail without @",
    operationId: "post_sii_certificacion_boletas_solicitar_set",
    query: { dry_run: "true" },
    body: { auth, email: "proveedor" },
    valid: false,
  },
];

/** The request path of an operation with these path values. */
function pathOf(operationId: string, values: Record<string, string> = {}): string {
  const template = v.forOperation(operationId).operation.path;
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? COMPANY));
}

describe("documents, submissions, exchanges, folios and certification: the document is as strict as the server", () => {
  // A list of 2 001 documents is ~600 KB: over the probe's small default body limit.
  const t = probeApp(undefined, { maxBodyBytes: 2 * 1024 * 1024 });
  const token = tokenFor(t.deps, { plan: { daily_units: 1_000_000, monthly_units: 1_000_000 } });

  it.each(CASES.map((c) => [`${c.operationId}: ${c.what}`, c] as const))("%s", async (_, c) => {
    const ov = v.forOperation(c.operationId);
    const params = ov.parameters({ path: c.path ?? pathDefaults(c.operationId), query: c.query ?? {} });
    const body = ov.body(c.body);
    const schemaSays = params.valid && body.valid;

    const qs = new URLSearchParams(c.query ?? {}).toString();
    const res = await t.app.request(`${pathOf(c.operationId, c.path)}${qs ? `?${qs}` : ""}`, {
      method: ov.operation.method.toUpperCase(),
      headers: { "x-api-token": (await token).secret, "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(c.body),
    });
    // Read as text: what is checked here is the status; the answer only explains a mismatch.
    const answer = await res.text();
    const served = res.status >= 200 && res.status < 300;
    const why = `${res.status} ${answer.slice(0, 300)}; schema: ${params.text} ${body.text}`;
    expect(served, `server: ${why}`).toBe(c.valid);
    if (!c.valid) expect([400, 422], why).toContain(res.status);
    expect(schemaSays, `schema: ${why}`).toBe(c.valid);
  });
});

describe("rules no JSON Schema keyword states (two values together, or the document's content)", () => {
  it("folio_inicial above folio_final is a 400 naming folio_inicial, and the parameter's description says so", async () => {
    const t = probeApp();
    const { secret } = await tokenFor(t.deps);
    const res = await t.app.request(`/api/v1/sii/dte/caf/anular/${COMPANY}/33/100/91?dry_run=true`, {
      method: "POST",
      headers: { "x-api-token": secret, "content-type": "application/json" },
      body: JSON.stringify({ auth }),
    });
    const body = await errorOf(res);
    expect([res.status, body.errors]).toEqual([
      400,
      [{ path: "folio_inicial", location: "path", message: "100 is greater than folio_final 91" }],
    ]);
    const { op } = v.forOperation("post_sii_dte_caf_anular").operation;
    const final = op.parameters.find((p: { name?: string }) => p.name === "folio_final");
    expect(final.description).toMatch(/not below `folio_inicial`/);
  });
});

/** Path values of an operation when the case names none (each RUT the sandbox company). */
function pathDefaults(operationId: string): Record<string, string> {
  const names = [...v.forOperation(operationId).operation.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
  return Object.fromEntries(names.map((n) => [n, COMPANY]));
}

describe("the examples of these operations are the sandbox's own", () => {
  it("the example CAF is signed with the sandbox's CAF key, for the sandbox company's exempt invoices (a type whose CAF does not expire)", async () => {
    const key = sandboxCafPublicKey();
    const caf = await readCaf(EXAMPLE_CAF, "caf", new Map([[key.idk, key]]));
    expect([caf.re, caf.td, caf.desde <= 1 && 1 <= caf.hasta]).toEqual([COMPANY, 34, true]);
    // Only the sandbox trusts it: the SII's keys alone refuse it.
    await expect(readCaf(EXAMPLE_CAF, "caf", new Map())).rejects.toThrow();
  });

  it("the example envelope carries the example invoice, signed by the sandbox's test certificate and stamped with the example CAF", async () => {
    const report = await inspectEnvelope(base64ToBytes(EXAMPLE_ENVELOPE));
    expect(report.problems).toEqual([]);
    expect(report.kind).toBe("EnvioDTE");
    expect(report.caratula?.rut_envia).toBe("11111111-1");
    expect(report.firma?.valido).toBe(true);
    const [document] = report.documentos;
    expect(document).toMatchObject({ tipo: 34, folio: 1, emisor: COMPANY });
    expect(document?.firma?.valido).toBe(true);
    const key = sandboxCafPublicKey();
    const stamp = await verifyStamp(report.doc, document!.documento, new Map([[key.idk, key]]));
    expect(stamp).toMatchObject({ timbre: { valido: true }, caf: { valido: true }, coherencia: { valido: true } });
  });

  it("the example certificate is the sandbox taxpayer's PFX", () => {
    expect(EXAMPLE_PFX).toEqual({ "pfx-data": juana.modernPfxBase64, passphrase: juana.passphrase });
  });
});
