// Authenticity checks of received documents: real documents of the shared fixtures (genuine ones
// pass, altered ones fail the check their name says), stamped documents made here, and the SII's
// own check against the sandbox once a document was sent.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import { bytesToBase64 } from "../../src/lib/encoding.ts";
import { Sent } from "../../src/routes/envios/enviar.ts";
import { Verified } from "../../src/routes/envios/verificar.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { buildCaf } from "../../src/sandbox/folios-caf.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";
import { signedDte, signedEnvelope } from "../support/envelope.ts";
import { fixturePath } from "../support/fixtures.ts";

const VERIFICAR = "/api/v1/platform/dte/envios/verificar";
const COMPANY = "76192083-9";
const juanaCert = { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem };

async function setup() {
  const t = probeApp();
  const token = await tokenFor(t.deps, { scopes: ["sii:read", "sii:write"] });
  const post = (path: string, body: unknown) => postJson(t.app, token.secret, path, body);
  const juana = await parseCertificateCredential(juanaCert, new Date());
  const caf = await buildCaf({ rut: COMPANY, razonSocial: "COMERCIAL SANDBOX SPA", tipo: 33, desde: 1, hasta: 100, fecha: "2026-11-01" });
  return { ...t, post, juana, caf, sandbox: simulatorOf(t.deps.sii) };
}
const verify = async (post: (p: string, b: unknown) => Promise<Response>, xml: Uint8Array | string, extra: object = {}) => {
  const bytes = typeof xml === "string" ? new TextEncoder().encode(xml) : xml;
  const res = await post(VERIFICAR, { xml: bytesToBase64(bytes), ...extra });
  expect(res.status).toBe(200);
  return (await answerOf(res, Verified)).data;
};

describe("verifying documents made here", () => {
  it("passes a stamped, signed envelope and each of its documents, at weight 3", async () => {
    const { post, juana, caf, app, deps } = await setup();
    const xml = await signedEnvelope(
      juana,
      COMPANY,
      [1, 2].map((folio) => ({ tipo: 33, folio, receptor: "22222222-2", total: 11_900, caf })),
    );
    const token = await tokenFor(deps, { scopes: ["sii:read"] });
    const res = await postJson(app, token.secret, VERIFICAR, { xml: bytesToBase64(xml) });
    expect(res.headers.get("x-quota-units")).toBe("3");
    const data = (await answerOf(res, Verified)).data;
    const ok = { valido: true, motivo: null };
    const firmante = {
      rut: "11111111-1",
      nombre: "Juana Pérez Soto",
      emisor: "SII Sandbox CA",
      vigente_desde: "2025-01-01T00:00:00.000Z",
      vigente_hasta: "2045-01-01T00:00:00.000Z",
      vigente_al_firmar: true,
      confianza: "cadena_valida",
      cadena: ["Juana Pérez Soto", "SII Sandbox CA"],
      motivo: null,
    };
    expect(data).toEqual({
      valido: true,
      motivo: null,
      sobre: { firma: ok, firmante },
      documentos: [1, 2].map((folio) => ({
        tipo: 33,
        folio,
        emisor: COMPANY,
        firma: ok,
        firmante,
        timbre: ok,
        caf: ok,
        coherencia: ok,
        timbre_cubre: expect.arrayContaining(["Encabezado.Totales.MntTotal", "Encabezado.IdDoc.Folio"]),
        sii: null,
      })),
    });
    expect((await verify(post, xml)).valido).toBe(true);
  });

  it("fails the stamp of a document whose total was changed and re-signed, and says why", async () => {
    const { post, juana, caf } = await setup();
    const dte = await signedDte(juana, COMPANY, { tipo: 33, folio: 3, receptor: "22222222-2", total: 11_900, caf });
    // Re-sign after changing the total: the signature is fine, the stamp no longer matches.
    const doc = await signedDte(juana, COMPANY, { tipo: 33, folio: 3, receptor: "22222222-2", total: 1_190, caf });
    const ted = /<TED[\s\S]*<\/TED>/.exec(dte)?.[0] ?? "";
    const mixed = doc.replace(/<TED[\s\S]*<\/TED>/, ted);
    const data = await verify(post, mixed);
    expect(data.valido).toBe(false);
    expect(data.documentos[0]?.firma.valido).toBe(false);
    expect(data.documentos[0]?.timbre.valido).toBe(true);
    expect(data.documentos[0]?.coherencia).toMatchObject({
      valido: false,
      motivo: expect.stringMatching(/TED MNT is "11900", the document says "1190"/),
    });
  });

  it("refuses a CAF signed by a key that is not the SII's, and notes a missing TED", async () => {
    const { post, juana } = await setup();
    const forged = (await buildCaf({ rut: COMPANY, razonSocial: "X", tipo: 33, desde: 1, hasta: 10, fecha: "2026-11-01" })).replace(
      /<IDK>\d+<\/IDK>/,
      "<IDK>666</IDK>",
    );
    const stamped = await verify(
      post,
      await signedDte(juana, COMPANY, { tipo: 33, folio: 4, receptor: "22222222-2", total: 1, caf: forged }),
    );
    expect(stamped.documentos[0]?.caf).toMatchObject({ valido: false, motivo: expect.stringMatching(/IDK 666, not a key of the SII/) });
    const bare = await verify(post, await signedDte(juana, COMPANY, { tipo: 33, folio: 5, receptor: "22222222-2", total: 1 }));
    expect(bare.documentos[0]?.timbre).toMatchObject({ valido: false, motivo: expect.stringMatching(/no TED/) });
    expect(bare.sobre).toBeNull();
  });

  it("asks the SII with a certificate: not received before sending, matching after", async () => {
    const { post, juana, caf } = await setup();
    const xml = await signedEnvelope(juana, COMPANY, [{ tipo: 33, folio: 30, receptor: "22222222-2", total: 11_900, caf }]);
    // Charged the weight plus one unit per document the SII is asked about.
    const charged = await post(VERIFICAR, { xml: bytesToBase64(xml), auth: { cert: juanaCert } });
    expect(charged.headers.get("x-quota-units")).toBe("4");
    const before = (await answerOf(charged, Verified)).data;
    expect(before.documentos[0]?.sii).toMatchObject({ recibido: false, estado: "FAU" });
    expect(before.valido).toBe(false);
    const sent = await post("/api/v1/platform/dte/envios/enviar", { auth: { cert: juanaCert }, xml: bytesToBase64(xml) });
    expect(sent.status).toBe(200);
    const after = await verify(post, xml, { auth: { cert: juanaCert } });
    expect(after.documentos[0]?.sii).toMatchObject({ recibido: true, estado: "DOK", track_id: (await answerOf(sent, Sent)).data.track_id });
    expect(after.valido).toBe(true);
  });

  it("answers 400 naming xml for what it cannot read, 401 and 403 without the right token", async () => {
    const { post, app, deps } = await setup();
    for (const xml of [
      "%%%",
      bytesToBase64(new TextEncoder().encode("<DTE><Documento>")),
      bytesToBase64(new TextEncoder().encode("<Otro/>")),
    ]) {
      const res = await post(VERIFICAR, { xml });
      const body = await errorOf(res);
      expect([res.status, body.error_code, body.errors?.[0]?.path]).toEqual([400, "VALIDATION_ERROR", "xml"]);
    }
    const none = await app.request(VERIFICAR, { method: "POST", body: "{}" });
    expect(none.status).toBe(401);
    const settings = await tokenFor(deps, { scopes: ["settings:read"] });
    expect((await postJson(app, settings.secret, VERIFICAR, { xml: "AA==" })).status).toBe(403);
  });
});

const realDocuments = fixturePath("real-documents");
const fixture = (dir: string, name: string) => readFileSync(join(realDocuments, dir, name));

describe("real documents", () => {
  const genuine = readdirSync(join(realDocuments, "sii-dte")).filter((f) => /^DTE--[^-]+-[^-]+--\d+--\d+(--cleaned)?\.xml$/.test(f));

  it.each(genuine)("%s: signature, stamp and CAF verify; its class-2 signer is reported as an unknown issuer", async (name) => {
    const { post } = await setup();
    const data = await verify(post, fixture("sii-dte", name));
    const doc = data.documentos[0]!;
    expect([doc.firma.valido, doc.timbre.valido, doc.caf.valido, doc.coherencia.valido], JSON.stringify(doc)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    // Real DTEs are signed under class-2 CAs whose certificates are not public: no chain, so without the SII's word, not valid.
    expect(doc.firmante).toMatchObject({ confianza: "emisor_desconocido", rut: expect.stringMatching(/^\d+-[\dK]$/) });
    expect(doc.timbre_cubre).toContain("Encabezado.Totales.MntTotal");
    expect(data.valido).toBe(false);
    expect(data.motivo).toMatch(/does not chain to a trusted CA, and the SII was not asked to confirm it/);
  });

  it("the SII's official example envelope is not: its certificate is not the key that signed it; its stamp still verifies", async () => {
    const { post } = await setup();
    const data = await verify(post, fixture("sii-example", "F60T33-ejemplo-oficial-SII.xml"));
    expect(data.valido).toBe(false);
    expect(data.sobre?.firma).toMatchObject({ valido: false, motivo: expect.stringMatching(/RSAKeyValue/) });
    expect(data.documentos).toMatchObject([
      { tipo: 33, folio: 60, firma: { valido: false }, timbre: { valido: true }, caf: { valido: true }, coherencia: { valido: true } },
    ]);
  });

  it.each([
    ["changed-monto", "firma"],
    ["empty-emails", "firma"],
    ["replaced-cert", "firma"],
    ["bad-cert", "firma"],
    ["bad-cert-no-base64", "firma"],
    ["removed-signature", "firma"],
  ] as const)("the copy altered by %s fails its %s check", async (mod, failing) => {
    const { post } = await setup();
    const data = await verify(post, fixture("sii-dte", `DTE--76354771-K--33--170--cleaned-mod-${mod}.xml`));
    expect(data.valido).toBe(false);
    expect(data.documentos[0]?.[failing].valido).toBe(false);
  });
});
