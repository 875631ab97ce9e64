// The certification service serves a caller that is no HTTP request: a Caller built from the test
// app's deps and the representative's credential read from the sandbox's certificate, plain data back.
import { describe, expect, it } from "vitest";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { applicationProgress, applyCompany, companyData, invoiceTestSet } from "../../src/services/certificacion.ts";
import { probeApp } from "../support/app.ts";
import { testCaller } from "../support/caller.ts";

const COMPANY = "76192083-9";
const form = { email: "certificacion@sandbox.example", software: "Mi ERP", documentos: [33, 61] };

async function setup() {
  const { deps } = probeApp();
  const { certPem, keyPem } = SANDBOX_TAXPAYER_CERTS["11111111-1"];
  const credential = await parseCertificateCredential({ "cert-data": certPem, "pkey-data": keyPem }, deps.clock.now());
  return { caller: testCaller(deps, "acme"), who: { contribuyente: COMPANY, credential }, sandbox: simulatorOf(deps.sii) };
}

// The application form's buttons and the SII's confirmation texts are inferred (src/sii/certificacion.ts).
describe("the certification service", { tags: ["inferred-sii-shape"] }, () => {
  it("previews an application without logging in, then applies and reads the company's data", async () => {
    const { caller, who, sandbox } = await setup();
    // A preview's postulado and glosa stand in for the SII's answer, and say so.
    expect(await applyCompany(caller, who, form, true)).toEqual({
      contribuyente: COMPANY,
      postulado: false,
      glosa: "",
      vista_previa: { provisionales: ["postulado", "glosa"], estimados: [] },
    });
    expect(sandbox.state.calls.get("cert_login") ?? 0).toBe(0);
    expect(await applyCompany(caller, who, form, false)).toMatchObject({ contribuyente: COMPANY, postulado: true });
    expect(await companyData(caller, who)).toMatchObject({ rut: COMPANY, estado: "EN CERTIFICACION" });
  });

  it("answers a test set as the SII's text and its cases (a dry run's empty), then follows its state", async () => {
    const { caller, who } = await setup();
    await applyCompany(caller, who, form, false);
    expect(await invoiceTestSet(caller, who, [], true)).toEqual({
      contribuyente: COMPANY,
      texto: "",
      sets: [],
      vista_previa: { provisionales: ["texto", "sets"], estimados: [] },
    });
    const set = await invoiceTestSet(caller, who, [], false);
    expect(set.texto).toMatch(/SET BASICO - NUMERO DE ATENCION/);
    expect(set).not.toHaveProperty("vista_previa");
    expect(set.sets[0]?.casos.length).toBeGreaterThan(0);
    const progress = await applicationProgress(caller, who);
    expect(progress.contribuyente).toBe(COMPANY);
    expect(progress.sets.map((s) => s.numero_atencion)).toContain(set.sets[0]?.numero_atencion);
  });
});
