// Every answer given as a file names it in Content-Disposition: inline for what a browser shows
// (PDF, HTML), attachment for what it saves (ESC/POS, CSV); never on the JSON form; and the
// OpenAPI document declares the header on each operation that can answer a file.
import { beforeAll, describe, expect, it } from "vitest";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import { bytesToBase64 } from "../../src/lib/encoding.ts";
import { contentDisposition, MAX_FILE_NAME, safeFileName } from "../../src/platform/file-answer.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { buildCaf } from "../../src/sandbox/folios-caf.ts";
import { documentOf, operationsIn } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";
import { signedEnvelope } from "../support/envelope.ts";

const COMPANY = "76192083-9";
const juanaCert = { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem };
const PDF = "/api/v1/platform/dte/documentos/pdf";
const ESCPOS = "/api/v1/platform/dte/documentos/escpos";

let one: string;
let three: string;
beforeAll(async () => {
  const juana = await parseCertificateCredential(juanaCert, new Date());
  const caf = await buildCaf({ rut: COMPANY, razonSocial: "COMERCIAL SANDBOX SPA", tipo: 33, desde: 1, hasta: 200, fecha: "2026-11-01" });
  const doc = (folio: number) => ({ tipo: 33, folio, receptor: "22222222-2", total: 11_900, caf });
  one = bytesToBase64(await signedEnvelope(juana, COMPANY, [doc(101)]));
  three = bytesToBase64(await signedEnvelope(juana, COMPANY, [doc(101), doc(102), doc(103)]));
});

async function setup() {
  const t = probeApp();
  const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postJson(t.app, token.secret, path, body, headers);
  return { ...t, post };
}

describe("Content-Disposition on file answers", () => {
  it("names a PDF of one document by its type and folio, inline", async () => {
    const { post } = await setup();
    const res = await post(PDF, { xml: one, oficina_sii: "PROVIDENCIA" });
    expect([res.status, res.headers.get("content-type")]).toEqual([200, "application/pdf"]);
    expect(res.headers.get("content-disposition")).toBe('inline; filename="DTE-33-101.pdf"');
  });

  it("names a PDF of an envelope of several documents by its issuer and how many it holds", async () => {
    const { post } = await setup();
    const res = await post(PDF, { xml: three, oficina_sii: "PROVIDENCIA" });
    expect(res.headers.get("content-disposition")).toBe(`inline; filename="EnvioDTE-${COMPANY}-3docs.pdf"`);
  });

  it("sends ESC/POS bytes as an attachment, and no header on either JSON form", async () => {
    const { post } = await setup();
    const bytes = await post(ESCPOS, { xml: one });
    expect([bytes.status, bytes.headers.get("content-disposition")]).toEqual([200, 'attachment; filename="DTE-33-101.prn"']);
    for (const path of [PDF, ESCPOS]) {
      const json = await post(path, path === PDF ? { xml: one, oficina_sii: "PROVIDENCIA" } : { xml: one }, { accept: "application/json" });
      expect([json.status, json.headers.get("content-type"), json.headers.get("content-disposition")]).toEqual([
        200,
        "application/json",
        null,
      ]);
    }
  });

  it("shows the SII's BTE page inline and saves its CSV, named for the issuer and year", async () => {
    const { post } = await setup();
    const auth = { auth: { pass: { rut: COMPANY, clave: "sandbox76" } } };
    const html = await post("/api/v1/sii/bte/emitidas/resumen/2026?formato=html", auth);
    expect([html.status, html.headers.get("content-disposition")]).toEqual([200, `inline; filename="bte-emitidas-${COMPANY}-2026.html"`]);
    const csv = await post("/api/v1/sii/bte/emitidas/resumen/2026?formato=csv", auth);
    expect([csv.status, csv.headers.get("content-disposition")]).toEqual([200, `attachment; filename="bte-emitidas-${COMPANY}-2026.csv"`]);
    const json = await post("/api/v1/sii/bte/emitidas/resumen/2026", auth);
    expect([json.status, json.headers.get("content-disposition")]).toEqual([200, null]);
  });

  it("shows the SII's taxpayer page inline, named for the taxpayer", async () => {
    const { post } = await setup();
    const res = await post(`/api/v1/sii/dte/contribuyentes/datos/${COMPANY}?formato=html`, { auth: { cert: juanaCert } });
    expect([res.status, res.headers.get("content-disposition")]).toEqual([200, `inline; filename="contribuyente-${COMPANY}.html"`]);
  });

  it("keeps names ASCII letters, digits, dot, underscore and hyphen, so no filename* is needed", () => {
    expect(safeFileName('a "b"/c\\d;é\r\n.pdf')).toBe("a__b__c_d____.pdf");
    // A carátula's RUT of a megabyte does not become a megabyte of header.
    const long = safeFileName(`EnvioDTE-${"9".repeat(1_000_000)}-2docs.pdf`);
    expect([long.length, long.startsWith("EnvioDTE-999"), long.endsWith(".pdf")]).toEqual([MAX_FILE_NAME, true, true]);
    expect(contentDisposition("attachment", "RCV_COMPRA_REGISTRO_76192083-9_202401.csv")).toBe(
      'attachment; filename="RCV_COMPRA_REGISTRO_76192083-9_202401.csv"',
    );
  });

  it("is declared on the 200 of every operation that can answer something other than JSON", async () => {
    const { app } = await setup();
    const doc = await documentOf(await app.request("/openapi.json"));
    const fileOperations = operationsIn(doc).filter(({ operation }) => {
      const ok = operation.responses?.["200"] as { content?: Record<string, unknown> } | undefined;
      return Object.keys(ok?.content ?? {}).some((type) => type !== "application/json");
    });
    expect(fileOperations.length).toBeGreaterThanOrEqual(6);
    for (const { method, path, operation } of fileOperations) {
      const ok = operation.responses?.["200"] as { headers?: Record<string, { schema?: { example?: string } }> };
      expect(ok.headers?.["Content-Disposition"]?.schema?.example, `${method} ${path}`).toMatch(
        /^(inline|attachment); filename="[\w.-]+"$/,
      );
    }
  });
});
