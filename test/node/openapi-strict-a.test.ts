// The OpenAPI document is exactly as strict as the server for the RCV, BTE, BHE, vehicle,
// indicator, settings, admin, usage, health and taxpayer operations: each request of the table is
// sent to the app over the sandbox AND checked against the document's schema for its operation
// (a JSON Schema 2020-12 validator over the served document). A request the schema accepts is
// served; a request the server refuses for its shape is refused by the schema too. The rules a
// schema cannot state (a RUT's check digit, a month that has not come yet, sums, one entry per
// day, a proxy host no URL parser reads) are listed apart: the schema accepts them and the server
// answers 400, as documented.
import { describe, expect, it } from "vitest";
import { parseRut } from "../../src/lib/rut.ts";
import { DRY_RUN_PATTERN, parseDryRun, RUT_PATTERN } from "../../src/platform/params.ts";
import { CertAuth } from "../../src/routes/credentials.ts";
import { EXAMPLE_CLAVE, EXAMPLE_PFX } from "../../src/routes/example-credentials.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { SANDBOX_TAXPAYERS } from "../../src/sandbox/taxpayers.ts";
import { ADMIN, probeApp, tokenFor } from "../support/app.ts";
import { servedDocument, validatorsFor } from "../support/openapi-schema.ts";

const t = probeApp();
const doc = await servedDocument(t.app);
const v = validatorsFor(doc);
const token = (await tokenFor(t.deps)).secret;

interface Case {
  /** What the row shows. */
  name: string;
  operationId: string;
  path?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
}

/** The request a case makes: the operation's path with its parameters, the query, the JSON body. */
async function send(c: Case): Promise<{ status: number; answer: Record<string, unknown> | null }> {
  const { operation } = v.forOperation(c.operationId);
  let url = operation.path;
  for (const [name, value] of Object.entries(c.path ?? {})) url = url.replace(`{${name}}`, encodeURIComponent(value));
  const search = new URLSearchParams(c.query ?? {}).toString();
  const admin = operation.path.startsWith("/admin/");
  const headers: Record<string, string> = admin ? { authorization: `Bearer ${ADMIN}` } : { "x-api-token": token };
  if (c.body !== undefined) headers["content-type"] = "application/json";
  const res = await t.app.request(`${url}${search ? `?${search}` : ""}`, {
    method: operation.method,
    headers,
    body: c.body === undefined ? undefined : JSON.stringify(c.body),
  });
  const text = await res.text();
  let answer: Record<string, unknown> | null = null;
  try {
    answer = JSON.parse(text) as Record<string, unknown>;
  } catch {
    answer = null;
  }
  return { status: res.status, answer };
}

/** Whether the document accepts the request (parameters and body), with the validator's words. */
function documentAccepts(c: Case): { valid: boolean; text: string } {
  const ops = v.forOperation(c.operationId);
  const params = ops.parameters({ path: c.path, query: c.query });
  const body = ops.bodySchema ? ops.body(c.body) : { valid: true, text: "" };
  return { valid: params.valid && body.valid, text: [params.text, body.text].filter(Boolean).join("\n") };
}

const pass = { pass: EXAMPLE_CLAVE };
const cert = { cert: EXAMPLE_PFX };
const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
const sdkCert = { "file-data": juana.modernPfxBase64, "file-pass": juana.passphrase };

// Operations and their parameters, as the cases use them.
const resumen = (receptor: string, periodo = "202405", estado = "REGISTRO") => ({
  operationId: "post_sii_rcv_compras_resumen",
  path: { receptor, periodo, estado },
});
const detalle = (dte: string, periodo = "202405") => ({
  operationId: "post_sii_rcv_compras_detalle",
  path: { receptor: "76192083-9", periodo, dte, estado: "REGISTRO" },
});
const rcvWrite = (operation: string, extra: Record<string, string> = {}) => ({
  operationId: `post_sii_rcv_${operation}`,
  path: { ...(operation.startsWith("compras") ? { receptor: "76192083-9" } : { emisor: "76192083-9" }), periodo: "202405", ...extra },
  query: { dry_run: "true" },
});
const boleta = { tipo_documento: 39, documentos: 120, monto_exento: 0, monto_neto: 840336, monto_iva: 159664, monto_total: 1000000 };
const dia = (n: number) => ({
  dia: n,
  documentos: 10,
  folio_inicial: 100 * n,
  folio_final: 100 * n + 9,
  monto_exento: 0,
  monto_neto: 10000,
  monto_iva: 1900,
  monto_total: 11900,
});
const change = { tipo_documento: 33, rut_emisor: "76441725-9", folio: 1000, tipo_transaccion: 4 };
const uf = (anio: string, mes: string, dia: string) => ({ operationId: "get_sii_indicadores_uf_anual", path: { anio, mes, dia } });
const bte = (anio: string) => ({ operationId: "post_sii_bte_emitidas_resumen", path: { anio }, body: { auth: pass } });
const proxy = (body: unknown) => ({ operationId: "put_settings_proxy", body });
const search = (body: unknown) => ({ operationId: "post_sii_vehiculos_tasacion_buscar", body });
const tipos = (categoria: string, query: Record<string, string> = {}) => ({
  operationId: "get_sii_vehiculos_categorias_tipos",
  path: { categoria },
  query,
});
const tokenById = (id: string) => ({ operationId: "admin_tokens_get", path: { id } });

/** Served (2xx, or the status a valid request gets from the state: 404 for an unknown token). */
const ACCEPTED: (Case & { status?: number })[] = [
  { name: "auth.pass", ...resumen("76192083-9"), body: { auth: pass } },
  { name: "auth.cert as pfx-data + passphrase", ...resumen("76192083-9"), body: { auth: cert } },
  { name: "auth.cert as file-data + file-pass", ...resumen("76192083-9"), body: { auth: { cert: sdkCert } } },
  { name: "a RUT with dots", ...resumen("76.192.083-9"), body: { auth: pass } },
  { name: "periodo 201705, the register's first month", ...resumen("76192083-9", "201705"), body: { auth: pass } },
  { name: "dte 0 (every type)", ...detalle("0"), body: { auth: pass } },
  { name: "dte 33", ...detalle("33"), body: { auth: pass } },
  {
    name: "dry_run TRUE (any case)",
    ...rcvWrite("ventas_set_resumen"),
    query: { dry_run: "TRUE" },
    body: { auth: pass, resumenes: [boleta] },
  },
  { name: "dry_run Yes", ...rcvWrite("ventas_delete_resumen"), query: { dry_run: "Yes" }, body: { auth: pass } },
  { name: "tipos_documento [39, 41]", ...rcvWrite("ventas_delete_resumen"), body: { auth: pass, tipos_documento: [39, 41] } },
  { name: "a purchase's transaction type", ...rcvWrite("compras_set_tipo_transaccion"), body: { auth: pass, documentos: [change] } },
  { name: "daily receipts of 39", ...rcvWrite("ventas_set_boletas_diarias", { dte: "39" }), body: { auth: pass, dias: [dia(1), dia(2)] } },
  { name: "BTE of 2005", ...bte("2005") },
  { name: "UF of 2025-03-15", ...uf("2025", "3", "15") },
  { name: "vehicle types of category 1", ...tipos("1", { anio_tasa: "2026" }) },
  { name: "a search with categoria and tipo", ...search({ categoria: 1, tipo: 3, por_pagina: 500 }) },
  {
    name: "a proxy with a username and its password",
    ...proxy({ enabled: true, url: "http://proxy.example.cl:3128", username: "u", password: "p" }),
  },
  { name: "a proxy disabled without url", ...proxy({ enabled: false, url: null }) },
  { name: "a proxy on port 65535", ...proxy({ enabled: true, url: "http://[2001:db8::1]:65535" }) },
  { name: "an empty password needs no username", ...proxy({ enabled: true, url: "http://proxy.example.cl:3128", password: "" }) },
  { name: "a token id of 64 characters (unknown: 404)", ...tokenById(`tok_${"t".repeat(60)}`), status: 404 },
  {
    name: "a BHE resend",
    operationId: "post_sii_bhe_emitidas_email",
    path: { codigo: "222222220000041F99ED" },
    body: { auth: { pass: { rut: "22222222-2", clave: "sandbox22" } }, destinatario: { email: "pagos@cliente.cl" } },
  },
  { name: "healthz", operationId: "healthz", query: { deep: "0" } },
];

/** Refused by the server for their shape (400 or 422 VALIDATION_ERROR), and so by the document. */
const REFUSED: Case[] = [
  { name: "auth without a credential", ...resumen("76192083-9"), body: { auth: {} } },
  { name: "auth.pass and auth.cert together", ...resumen("76192083-9"), body: { auth: { ...pass, ...cert } } },
  { name: "an unknown key in auth", ...resumen("76192083-9"), body: { auth: { ...pass, token: "x" } } },
  { name: "an unknown key in auth.pass", ...resumen("76192083-9"), body: { auth: { pass: { ...EXAMPLE_CLAVE, otp: "1" } } } },
  { name: "an empty clave", ...resumen("76192083-9"), body: { auth: { pass: { rut: "76192083-9", clave: "" } } } },
  { name: "pfx-data with cert-data", ...resumen("76192083-9"), body: { auth: { cert: { ...EXAMPLE_PFX, "cert-data": juana.certPem } } } },
  { name: "pfx-data without passphrase", ...resumen("76192083-9"), body: { auth: { cert: { "pfx-data": EXAMPLE_PFX["pfx-data"] } } } },
  {
    name: "pfx-data with file-pass",
    ...resumen("76192083-9"),
    body: { auth: { cert: { "pfx-data": juana.modernPfxBase64, "file-pass": "sandbox" } } },
  },
  {
    name: "file-data with passphrase",
    ...resumen("76192083-9"),
    body: { auth: { cert: { "file-data": juana.modernPfxBase64, passphrase: "sandbox" } } },
  },
  {
    name: "pfx-data and file-data",
    ...resumen("76192083-9"),
    body: { auth: { cert: { ...EXAMPLE_PFX, "file-data": juana.modernPfxBase64 } } },
  },
  { name: "cert-data without pkey-data", ...resumen("76192083-9"), body: { auth: { cert: { "cert-data": juana.certPem } } } },
  { name: "an unknown key in auth.cert", ...resumen("76192083-9"), body: { auth: { cert: { ...EXAMPLE_PFX, alias: "x" } } } },
  { name: "a RUT without its hyphen", ...resumen("761920839"), body: { auth: pass } },
  { name: "a RUT with spaces", ...resumen(" 76192083-9"), body: { auth: pass } },
  { name: "a RUT of nine digits", ...resumen("176192083-9"), body: { auth: pass } },
  { name: "periodo before 201705", ...resumen("76192083-9", "201704"), body: { auth: pass } },
  { name: "periodo month 13", ...resumen("76192083-9", "202413"), body: { auth: pass } },
  { name: "an unknown estado", ...resumen("76192083-9", "202405", "ACEPTADO"), body: { auth: pass } },
  { name: "dte 999", ...detalle("999"), body: { auth: pass } },
  { name: "dte 31, not of the register", ...detalle("31"), body: { auth: pass } },
  { name: "dte negative", ...detalle("-33"), body: { auth: pass } },
  { name: "dte not a number", ...detalle("factura"), body: { auth: pass } },
  { name: "dry_run maybe", ...rcvWrite("ventas_set_resumen"), query: { dry_run: "maybe" }, body: { auth: pass, resumenes: [boleta] } },
  { name: "dry_run empty", ...rcvWrite("ventas_set_resumen"), query: { dry_run: "" }, body: { auth: pass, resumenes: [boleta] } },
  { name: "dry_run with spaces", ...rcvWrite("ventas_set_resumen"), query: { dry_run: " on" }, body: { auth: pass, resumenes: [boleta] } },
  { name: "a summary of type 33", ...rcvWrite("ventas_set_resumen"), body: { auth: pass, resumenes: [{ ...boleta, tipo_documento: 33 }] } },
  { name: "no summaries", ...rcvWrite("ventas_set_resumen"), body: { auth: pass, resumenes: [] } },
  { name: "tipos_documento [33]", ...rcvWrite("ventas_delete_resumen"), body: { auth: pass, tipos_documento: [33] } },
  { name: "tipos_documento []", ...rcvWrite("ventas_delete_resumen"), body: { auth: pass, tipos_documento: [] } },
  {
    name: "a transaction type of type 35",
    ...rcvWrite("compras_set_tipo_transaccion"),
    body: { auth: pass, documentos: [{ ...change, tipo_documento: 35 }] },
  },
  {
    name: "a non-recoverable VAT code",
    ...rcvWrite("compras_set_tipo_transaccion"),
    body: { auth: pass, documentos: [{ ...change, tipo_transaccion: 6, codigo_iva_no_recuperable: 1 }] },
  },
  { name: "folio 0", ...rcvWrite("compras_set_tipo_transaccion"), body: { auth: pass, documentos: [{ ...change, folio: 0 }] } },
  {
    name: "folio of 11 digits",
    ...rcvWrite("compras_set_tipo_transaccion"),
    body: { auth: pass, documentos: [{ ...change, folio: 1e10 }] },
  },
  { name: "daily receipts of 33", ...rcvWrite("ventas_set_boletas_diarias", { dte: "33" }), body: { auth: pass, dias: [dia(1)] } },
  { name: "day 32", ...rcvWrite("ventas_set_boletas_diarias", { dte: "39" }), body: { auth: pass, dias: [dia(32)] } },
  { name: "no days", ...rcvWrite("ventas_set_boletas_diarias", { dte: "39" }), body: { auth: pass, dias: [] } },
  { name: "BTE of 2004", ...bte("2004") },
  { name: "BTE of 2101", ...bte("2101") },
  { name: "BTE with a certificate", ...bte("2025"), body: { auth: cert } },
  { name: "UF of 1899", ...uf("1899", "1", "1") },
  { name: "UF of month 13", ...uf("2025", "13", "1") },
  { name: "UF of day 32", ...uf("2025", "1", "32") },
  { name: "vehicle category 4", ...tipos("4") },
  { name: "appraisal year 2019", ...tipos("1", { anio_tasa: "2019" }) },
  { name: "appraisal year 2101", ...tipos("1", { anio_tasa: "2101" }) },
  { name: "a search without categoria nor tipo", ...search({}) },
  { name: "a search without tipo", ...search({ categoria: 1 }) },
  { name: "a search of category 4", ...search({ categoria: 4, tipo: 1 }) },
  { name: "a search of appraisal year 2019", ...search({ categoria: 1, tipo: 1, anio_tasa: 2019 }) },
  { name: "a search of model year 1800", ...search({ categoria: 1, tipo: 1, anio: 1800 }) },
  { name: "a search of page 0", ...search({ categoria: 1, tipo: 1, pagina: 0 }) },
  { name: "a search of 501 per page", ...search({ categoria: 1, tipo: 1, por_pagina: 501 }) },
  { name: "a proxy enabled without url", ...proxy({ enabled: true }) },
  { name: "a proxy enabled with url null", ...proxy({ enabled: true, url: null }) },
  { name: "a proxy password without username", ...proxy({ enabled: true, url: "http://proxy.example.cl:3128", password: "p" }) },
  { name: "a proxy password with an empty username", ...proxy({ enabled: false, password: "p", username: "" }) },
  { name: "a proxy on port 0", ...proxy({ enabled: true, url: "http://proxy.example.cl:0" }) },
  { name: "a proxy on port 65536", ...proxy({ enabled: true, url: "http://proxy.example.cl:65536" }) },
  { name: "a proxy port with leading zeros", ...proxy({ enabled: true, url: "http://proxy.example.cl:0080" }) },
  { name: "a proxy with a path", ...proxy({ enabled: true, url: "http://proxy.example.cl:3128/x" }) },
  { name: "a proxy with an unknown key", ...proxy({ enabled: false, extra: 1 }) },
  { name: "a token id of 65 characters", ...tokenById("t".repeat(65)) },
  {
    name: "a token with a blank name",
    operationId: "admin_tokens_create",
    body: { name: "   ", account: "acme", scopes: ["sii:read"] },
  },
  {
    name: "a BHE resend to a malformed address",
    operationId: "post_sii_bhe_emitidas_email",
    path: { codigo: "222222220000041F99ED" },
    body: { auth: { pass: { rut: "22222222-2", clave: "sandbox22" } }, destinatario: { email: "pagos@" } },
  },
  { name: "healthz deep=2", operationId: "healthz", query: { deep: "2" } },
];

/** Refused by the server with 400 for a rule no JSON Schema keyword states; each is in the descriptions. */
const SERVER_ONLY: Case[] = [
  { name: "a RUT's check digit", ...resumen("76192083-K"), body: { auth: pass } },
  { name: "a month that has not come yet", ...resumen("76192083-9", "209912"), body: { auth: pass } },
  {
    name: "monto_total not the sum of its parts",
    ...rcvWrite("ventas_set_resumen"),
    body: { auth: pass, resumenes: [{ ...boleta, monto_total: 5 }] },
  },
  { name: "a type given twice", ...rcvWrite("ventas_set_resumen"), body: { auth: pass, resumenes: [boleta, boleta] } },
  { name: "a day given twice", ...rcvWrite("ventas_set_boletas_diarias", { dte: "39" }), body: { auth: pass, dias: [dia(1), dia(1)] } },
  {
    name: "a day past the month's end (June 31)",
    ...rcvWrite("ventas_set_boletas_diarias", { dte: "39", periodo: "202406" }),
    body: { auth: pass, dias: [dia(31)] },
  },
  { name: "2025-02-30", ...uf("2025", "2", "30") },
  { name: "a proxy host no URL parser reads ([:0])", ...proxy({ enabled: true, url: "http://[:0]:3128" }) },
  { name: "a proxy host no URL parser reads (1.2.3.256)", ...proxy({ enabled: true, url: "http://1.2.3.256:3128" }) },
];

describe("the document is as strict as the server", () => {
  it.each(ACCEPTED.map((c) => [c.name, c] as const))("both accept: %s", async (_name, c) => {
    const schema = documentAccepts(c);
    expect(schema.valid, schema.text).toBe(true);
    const { status, answer } = await send(c);
    if (c.status) expect(status, JSON.stringify(answer)).toBe(c.status);
    else expect(status, JSON.stringify(answer)).toBeLessThan(300);
  });

  it.each(REFUSED.map((c) => [c.name, c] as const))("both refuse: %s", async (_name, c) => {
    expect(documentAccepts(c).valid).toBe(false);
    const { status, answer } = await send(c);
    expect([400, 422], JSON.stringify(answer)).toContain(status);
    expect(answer?.error_code).toBe("VALIDATION_ERROR");
  });

  it.each(SERVER_ONLY.map((c) => [c.name, c] as const))("only the server can refuse %s (400, described)", async (_name, c) => {
    expect(documentAccepts(c).text).toBe("");
    const { status, answer } = await send(c);
    expect([status, answer?.error_code], JSON.stringify(answer)).toEqual([400, "VALIDATION_ERROR"]);
  });
});

describe("the document's example credentials are the sandbox's public test ones", () => {
  it("the PFX and its passphrase are Juana Pérez Soto's (11111111-1), the clave Comercial Sandbox SpA's", () => {
    expect(EXAMPLE_PFX).toEqual({ "pfx-data": juana.modernPfxBase64, passphrase: juana.passphrase });
    const company = SANDBOX_TAXPAYERS.find((p) => p.rut === EXAMPLE_CLAVE.rut);
    expect(company?.clave).toBe(EXAMPLE_CLAVE.clave);
  });

  it("the certificate's three forms are a oneOf of closed objects in the document", () => {
    const cert = doc.components.schemas.CertificateCredential;
    expect(cert.oneOf.map((f: { required: string[] }) => f.required)).toEqual([
      ["cert-data", "pkey-data"],
      ["pfx-data", "passphrase"],
      ["file-data", "file-pass"],
    ]);
    for (const form of cert.oneOf) expect(form.additionalProperties).toBe(false);
  });

  it("every path parameter of these operations is required, and every operation and parameter described", async () => {
    const mine = /\/(rcv|bte|bhe|vehiculos|indicadores|contribuyentes)\/|\/settings\/|\/admin\/|\/usage|\/healthz/;
    const resolve = (p: { $ref?: string }) => (p.$ref ? doc.components.parameters[p.$ref.split("/").pop() ?? ""] : p);
    const problems: string[] = [];
    for (const o of v.operations.filter((o) => mine.test(o.path))) {
      if (!o.op.summary || !o.op.description) problems.push(`${o.operationId}: no summary or description`);
      for (const p of (o.op.parameters ?? []).map(resolve)) {
        if (!p.description) problems.push(`${o.operationId} ${p.name}: no description`);
        if (p.in === "path" && p.required !== true) problems.push(`${o.operationId} ${p.name}: path parameter not required`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("the shared pieces agree with their document schemas everywhere", () => {
  it("auth.cert: every combination of the six fields is accepted by both or refused by both", () => {
    const values: Record<string, string> = {
      "cert-data": juana.certPem,
      "pkey-data": "key",
      "pfx-data": juana.modernPfxBase64,
      passphrase: "sandbox",
      "file-data": juana.modernPfxBase64,
      "file-pass": "sandbox",
    };
    const names = Object.keys(values);
    const documented = v.schemaAt("#/components/schemas/CertificateCredential");
    const disagreements: string[] = [];
    for (let mask = 0; mask < 2 ** names.length; mask++) {
      const cert = Object.fromEntries(names.filter((_, i) => mask & (2 ** i)).map((n) => [n, values[n]]));
      if (documented(cert).valid !== CertAuth.safeParse(cert).success) disagreements.push(Object.keys(cert).join("+") || "{}");
    }
    expect(disagreements).toEqual([]);
  });

  it("dry_run: the pattern accepts exactly what the server reads, in every letter case", () => {
    const pattern = new RegExp(DRY_RUN_PATTERN);
    const cases = (word: string) => [word, word.toUpperCase(), word[0]?.toUpperCase() + word.slice(1), ` ${word}`, `${word} `, `${word}x`];
    const spellings = ["true", "1", "yes", "on", "false", "0", "no", "off", "", "2", "maybe", "y", "nope", "ON!"].flatMap(cases);
    for (const value of spellings) expect(pattern.test(value), JSON.stringify(value)).toBe(parseDryRun(value) !== null);
  });

  it("RUT: the pattern accepts every form parseRut reads (the check digit aside)", () => {
    const pattern = new RegExp(RUT_PATTERN);
    const bodies = ["1", "12", "123", "1234", "12345", "123456", "1234567", "12345678", "123456789", "1.234", "12.345", "123.456"];
    const more = ["1.234.567", "12.345.678", "12.345678", "12345.678", "1.2345", ".123", "0012", "00.000.001", "1a"];
    let checked = 0;
    for (const body of [...bodies, ...more]) {
      for (const tail of ["-0", "-k", "-K", "-X", "", " -1", "-1 ", "-12"]) {
        const value = `${body}${tail}`;
        // parseRut also verifies the check digit: whether it read the form is whether it got that far.
        const parsed = parseRut(value);
        const formRead = parsed.ok || !/must have the form/.test(parsed.reason);
        if (value.trim() !== value) continue; // parseRut trims for its other callers; the parameter does not
        expect(pattern.test(value), value).toBe(formRead);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });
});

// The answers above are real: a sample is read to be sure the table is not refused for another reason.
describe("the table's requests reach their operations", () => {
  it("a served write is a preview, a refused one names its field", async () => {
    const served = await send({ name: "", ...rcvWrite("ventas_set_resumen"), body: { auth: pass, resumenes: [boleta] } });
    expect(served.status).toBe(200);
    const refused = await send({ name: "", ...detalle("999"), body: { auth: pass } });
    expect(refused.answer?.errors).toEqual([expect.objectContaining({ path: "dte", location: "path" })]);
  });
});
