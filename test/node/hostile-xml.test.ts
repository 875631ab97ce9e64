// Hostile XML sent to every operation that reads uploaded XML (envelopes, DTEs, CAFs): entity expansion, external
// entities, deep nesting and huge attributes are refused with 400 naming the field, before any
// parsing (the screen is one linear pass) and without reaching the SII.
import { describe, expect, it } from "vitest";
import { bytesToBase64 } from "../../src/lib/encoding.ts";
import { Normalized } from "../../src/routes/documentos/formatos-json.ts";
import { EXAMPLE_ISSUER } from "../../src/routes/example-documents.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const cert = { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem };
const b64 = (text: string) => bytesToBase64(new TextEncoder().encode(text));

/** Each hostile shape, its repetitions scaled by `k` (the CAF field is at most 64 KiB, so its shapes are smaller). */
const hostile = (k: number): Record<string, string> => {
  const n = (count: number) => Math.round(count * k);
  return {
    "billion laughs": `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">]><EnvioDTE>&lol2;</EnvioDTE>`,
    "external entity": `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><DTE>&xxe;</DTE>`,
    "deep nesting": `${"<a>".repeat(n(100_000))}${"</a>".repeat(n(100_000))}`,
    "huge attribute": `<DTE version="${"1".repeat(n(1_000_000))}"/>`,
    // Openings never closed: a screen that rescans from each one is quadratic (240 KB took seconds).
    "unclosed comments": `<DTE>${"<!--".repeat(n(60_000))}`,
    "unclosed CDATA sections": `<DTE>${"<![CDATA[".repeat(n(60_000))}`,
    "unclosed processing instructions": `<DTE>${"<?".repeat(n(120_000))}`,
    "unclosed attribute values": `<DTE>${'<a x="'.repeat(n(50_000))}`,
    "DTE openings never closed, in a comment": `<EnvioDTE><SetDTE><!--${"<DTE ".repeat(n(40_000))}--></SetDTE></EnvioDTE>`,
  };
};

const generar = (caf: string) => ({
  auth: { cert },
  dte: {
    Encabezado: {
      IdDoc: { TipoDTE: 33, Folio: 1 },
      Emisor: EXAMPLE_ISSUER,
      Receptor: { RUTRecep: "22222222-2", RznSocRecep: "Pedro", GiroRecep: "Servicios", DirRecep: "Calle 1", CmnaRecep: "Santiago" },
    },
    Detalle: { NmbItem: "Item", QtyItem: 1, PrcItem: 1_000 },
  },
  caf,
  resolucion: { fecha: "2014-08-22", numero: 80 },
});

/** Each operation that reads uploaded XML, the field that carries it, a body around it, and the shapes' scale. */
const OPERATIONS: [string, string, (xml: string) => unknown, number][] = [
  ["/api/v1/platform/dte/envios/enviar", "xml", (xml) => ({ auth: { cert }, xml: b64(xml) }), 1],
  ["/api/v1/platform/dte/envios/verificar", "xml", (xml) => ({ xml: b64(xml) }), 1],
  ["/api/v1/platform/dte/formatos/json", "xml", (xml) => ({ xml: b64(xml) }), 1],
  ["/api/v1/platform/dte/documentos/escpos", "xml", (xml) => ({ xml: b64(xml) }), 1],
  ["/api/v1/platform/dte/documentos/pdf", "xml", (xml) => ({ xml: b64(xml), oficina_sii: "PROVIDENCIA" }), 1],
  // The CAF goes in as raw XML or base64: both are screened (within its 64 KiB limit; larger is a 422 naming it).
  ["/api/v1/platform/dte/documentos/generar", "caf", (xml) => generar(xml), 1 / 25],
  ["/api/v1/platform/dte/documentos/generar", "caf", (xml) => generar(b64(xml)), 1 / 25],
];

describe.each(OPERATIONS)("%s (%s)", (path, field, body, scale) => {
  const shapes = hostile(scale);
  it.each(Object.keys(shapes))("refuses %s with 400 naming the field", async (name) => {
    const t = probeApp(undefined, { maxBodyBytes: 4 * 1024 * 1024 });
    const token = await tokenFor(t.deps, { scopes: ["sii:read", "sii:write"] });
    // How long a refusal takes is the bench's (bench/stall.ts, the hostile inputs): this pins what is answered.
    const res = await postJson(t.app, token.secret, path, body(shapes[name] as string));
    const answer = await errorOf(res);
    expect([res.status, answer.error_code], JSON.stringify(answer).slice(0, 300)).toEqual([400, "VALIDATION_ERROR"]);
    expect(answer.errors?.map((e) => e.path).join(" ")).toMatch(new RegExp(`^${field}`));
    expect([...simulatorOf(t.deps.sii).state.calls.values()].reduce((a, b) => a + b, 0)).toBe(0);
  });
});

// Element names that are members of Object.prototype, and JSON nested deeper than any document.
describe("formatos/json with hostile names and nesting", () => {
  const dteXml = (inner: string) =>
    `<DTE version="1.0"><Documento ID="F1T33"><Encabezado><IdDoc><TipoDTE>33</TipoDTE><Folio>1</Folio><FchEmis>2026-01-05</FchEmis></IdDoc><Emisor><RUTEmisor>${EXAMPLE_ISSUER.RUTEmisor}</RUTEmisor><RznSoc>Emisor</RznSoc><GiroEmis>Servicios</GiroEmis><Acteco>620200</Acteco><DirOrigen>Calle 1</DirOrigen><CmnaOrigen>Santiago</CmnaOrigen></Emisor><Receptor><RUTRecep>22222222-2</RUTRecep><RznSocRecep>Pedro</RznSocRecep><GiroRecep>Servicios</GiroRecep><DirRecep>Calle 2</DirRecep><CmnaRecep>Santiago</CmnaRecep></Receptor></Encabezado><Detalle><NroLinDet>1</NroLinDet><NmbItem>Item</NmbItem><QtyItem>1</QtyItem><PrcItem>1000</PrcItem></Detalle>${inner}</Documento></DTE>`;

  it.each(["constructor", "toString", "valueOf", "hasOwnProperty", "__proto__"])(
    "reads an element named <%s> as data, not a 500",
    async (name) => {
      const t = probeApp();
      const token = await tokenFor(t.deps, { scopes: ["sii:read", "sii:write"] });
      const xml = dteXml(`<${name}>x</${name}><${name}>y</${name}>`);
      const res = await postJson(t.app, token.secret, "/api/v1/platform/dte/formatos/json", { xml: b64(xml) });
      expect(res.status, (await res.clone().text()).slice(0, 300)).toBe(200);
      const answer = await answerOf(res, Normalized);
      expect(answer.data).toHaveProperty(["documentos", 0, "dte", "Encabezado", "Totales", "MntTotal"], 1190);
    },
  );

  // Written as text: serializing 5 000 levels is more than a test's own stack allows.
  const deep = `${'{"a":['.repeat(2_500)}"bottom"${"]}".repeat(2_500)}`;
  const line = '"Detalle":{"NmbItem":"x","QtyItem":1,"PrcItem":1000}';
  it.each([
    ["a field of dte", `{"dte":{"Encabezado":{"IdDoc":{"TipoDTE":33}},${line},"Extra":${deep}}}`, "dte.Extra"],
    [
      "a line of dte",
      `{"dte":{"Encabezado":{"IdDoc":{"TipoDTE":33}},"Detalle":[{"NmbItem":"x","QtyItem":1,"PrcItem":1,"Sub":${deep}}]}}`,
      "dte.Detalle[0].Sub",
    ],
  ])("answers JSON nested 5 000 levels in %s with 400 naming it", async (_where, body, path) => {
    const t = probeApp();
    const token = await tokenFor(t.deps, { scopes: ["sii:read", "sii:write"] });
    const res = await t.app.request("/api/v1/platform/dte/formatos/json", {
      method: "POST",
      headers: { "x-api-token": token.secret, "content-type": "application/json" },
      body,
    });
    const answer = await errorOf(res);
    expect([res.status, answer.error_code], JSON.stringify(answer).slice(0, 300)).toEqual([400, "VALIDATION_ERROR"]);
    expect(answer.errors?.[0]?.path.startsWith(path)).toBe(true);
    expect(answer.errors?.[0]?.message).toMatch(/nested deeper than 64 levels/);
  });
});
