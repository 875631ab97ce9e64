// Hostile XML sent to every operation that reads uploaded XML: entity expansion, external
// entities, deep nesting and huge attributes are refused with 400 naming the field, before any
// parsing (the screen is one linear pass) and without reaching the SII.
import { describe, expect, it } from "vitest";
import { bytesToBase64 } from "../../src/lib/encoding.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { bodyOf, postJson, probeApp, tokenFor } from "../support/app.ts";

const cert = { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem };
const b64 = (text: string) => bytesToBase64(new TextEncoder().encode(text));

const HOSTILE: Record<string, string> = {
  "billion laughs": `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">]><EnvioDTE>&lol2;</EnvioDTE>`,
  "external entity": `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><DTE>&xxe;</DTE>`,
  "deep nesting": `${"<a>".repeat(100_000)}${"</a>".repeat(100_000)}`,
  "huge attribute": `<DTE version="${"1".repeat(1_000_000)}"/>`,
};

const OPERATIONS: [string, (xml: string) => unknown][] = [
  ["/api/v1/platform/dte/envios/enviar", (xml) => ({ auth: { cert }, xml: b64(xml) })],
  ["/api/v1/platform/dte/envios/verificar", (xml) => ({ xml: b64(xml) })],
  ["/api/v1/platform/dte/formatos/json", (xml) => ({ xml: b64(xml) })],
  ["/api/v1/platform/dte/documentos/escpos", (xml) => ({ xml: b64(xml) })],
  ["/api/v1/platform/dte/documentos/pdf", (xml) => ({ xml: b64(xml) })],
];

describe.each(OPERATIONS)("%s", (path, body) => {
  it.each(Object.keys(HOSTILE))("refuses %s with 400 naming xml", async (name) => {
    const t = probeApp(undefined, { maxBodyBytes: 4 * 1024 * 1024 });
    const token = await tokenFor(t.deps, { scopes: ["sii:read", "sii:write"] });
    const res = await postJson(t.app, token.secret, path, body(HOSTILE[name] as string));
    const answer = await bodyOf(res);
    expect([res.status, answer.error_code], JSON.stringify(answer).slice(0, 300)).toEqual([400, "VALIDATION_ERROR"]);
    expect(answer.errors.map((e: { path: string }) => e.path).join(" ")).toMatch(/^xml/);
    expect([...t.deps.sii.sandbox!.state.calls.values()].reduce((a, b) => a + b, 0)).toBe(0);
  });
});
