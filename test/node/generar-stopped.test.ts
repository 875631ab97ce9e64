// A generation that stops half-way (the runtime fails to make a signature) is charged only for the
// blocks of 25 documents it signed something in, and its 500 says which documents were signed and
// which one failed and why. The failure is injected into the engine's one signing function.
import { describe, expect, it, vi } from "vitest";
import { exampleInvoiceOf } from "../../src/routes/example-documents.ts";
import { LedgerEnvelope } from "../../src/routes/folio-ledger-schema.ts";
import { UsageEnvelope } from "../../src/routes/usage/get.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { buildCaf } from "../../src/sandbox/folios-caf.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

/** The signature (counted from 1) that fails; each document takes two: its TED's, then its own. */
const failing = vi.hoisted(() => ({ at: Number.POSITIVE_INFINITY, calls: 0 }));
vi.mock("../../src/lib/crypto.ts", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../src/lib/crypto.ts")>();
  return {
    ...actual,
    signRsa: async (key: CryptoKey, data: Uint8Array) => {
      if (++failing.calls === failing.at) throw new Error("the runtime could not sign");
      return actual.signRsa(key, data);
    },
  };
});

const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
const GENERAR = "/api/v1/platform/dte/documentos/generar";

async function generateFailingAt(documents: number, failingDocument: number) {
  const t = probeApp(undefined, { maxBodyBytes: 10 * 1024 * 1024 });
  const token = await tokenFor(t.deps, { scopes: ["sii:read", "sii:write"], plan: { daily_units: 1_000, monthly_units: 10_000 } });
  const caf = await buildCaf({
    rut: "76192083-9",
    razonSocial: "COMERCIAL SANDBOX SPA",
    tipo: 33,
    desde: 1,
    hasta: 1_000,
    fecha: "2026-11-01",
  });
  const dte = Array.from({ length: documents }, (_, i) => exampleInvoiceOf(1 + i, 1));
  failing.calls = 0;
  failing.at = 2 * failingDocument + 1;
  const res = await postJson(t.app, token.secret, GENERAR, {
    auth: { cert: { "cert-data": juana.certPem, "pkey-data": juana.keyPem } },
    dte,
    caf,
    resolucion: { fecha: "2014-08-22", numero: 80 },
  });
  failing.at = Number.POSITIVE_INFINITY;
  const usage = await answerOf(await t.app.request("/api/v1/usage", { headers: { "x-api-token": token.secret } }), UsageEnvelope);
  return { status: res.status, units: res.headers.get("x-quota-units"), res, used: usage.data.usage.daily.used };
}

describe("generar stopped half-way", () => {
  it("120 invoices, the 71st's stamp fails: 70 signed, charged 3 blocks (6 units) of the 5 (10) taken, and the answer says so", async () => {
    const { status, units, res, used } = await generateFailingAt(120, 70);
    const json = await errorOf(res);
    expect([status, json.error_code]).toEqual([500, "INTERNAL_ERROR"]);
    expect(json.message).toMatch(/dte\[70\] after 70 of the documents were signed/);
    expect(json.details?.firmados).toHaveLength(70);
    expect(json.details).toHaveProperty(["firmados", 69], { index: 69, tipo: 33, folio: 70 });
    expect(json.details?.fallido).toEqual({ index: 70, tipo: 33, folio: 71, reason: "the runtime could not sign" });
    expect(json.details?.unidades_cobradas).toBe(6);
    expect([units, used]).toEqual(["6", 6]);
  });

  it("the first document fails: nothing signed, nothing charged", async () => {
    const { status, units, res, used } = await generateFailingAt(60, 0);
    const json = await errorOf(res);
    expect([status, json.details?.firmados, json.details?.unidades_cobradas]).toEqual([500, [], 0]);
    expect([units, used]).toEqual(["0", 0]);
  });

  it("nothing fails: 120 invoices are charged 5 blocks (10 units)", async () => {
    const { status, units, used } = await generateFailingAt(120, 1_000);
    expect([status, units, used]).toEqual([200, "10", 10]);
  });

  it("with the folio ledger: the folios the stopped request took go back to the ledger, and the 500 says which", async () => {
    const t = probeApp();
    const token = await tokenFor(t.deps, { scopes: ["sii:read", "sii:write"] });
    const caf = await buildCaf({
      rut: "76192083-9",
      razonSocial: "COMERCIAL SANDBOX SPA",
      tipo: 33,
      desde: 1,
      hasta: 10,
      fecha: "2026-11-01",
    });
    const ledger = "/api/v1/platform/dte/folios/76192083-9/33";
    expect((await postJson(t.app, token.secret, ledger, { caf })).status).toBe(200);
    const dte = Array.from({ length: 3 }, () => {
      const { Folio: _folio, ...idDoc } = exampleInvoiceOf(1, 1).Encabezado.IdDoc;
      return { ...exampleInvoiceOf(1, 1), Encabezado: { ...exampleInvoiceOf(1, 1).Encabezado, IdDoc: idDoc } };
    });
    failing.calls = 0;
    failing.at = 2 * 1 + 1;
    const res = await postJson(t.app, token.secret, GENERAR, {
      auth: { cert: { "cert-data": juana.certPem, "pkey-data": juana.keyPem } },
      dte,
      resolucion: { fecha: "2014-08-22", numero: 80 },
    });
    failing.at = Number.POSITIVE_INFINITY;
    const json = await errorOf(res);
    expect([res.status, json.details?.folios_liberados]).toEqual([500, [{ dte: 33, folios: [1, 2, 3] }]]);
    expect(json.details?.firmados).toHaveLength(1);
    const after = await answerOf(await t.app.request(ledger, { headers: { "x-api-token": token.secret } }), LedgerEnvelope);
    expect(after.data).toMatchObject({ disponibles: 10, siguiente: 1 });
  });
});
