// The exchanges service serves a caller that is no HTTP request: a Caller built from the test
// app's deps and a credential read from the sandbox's certificate, plain data back.
import { describe, expect, it } from "vitest";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import type { Caller } from "../../src/platform/caller.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { SANDBOX_SUPPLIER } from "../../src/sandbox/intercambios.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { documentAssignability, documentEvents, respondToDocuments } from "../../src/services/intercambios.ts";
import { probeApp } from "../support/app.ts";

async function setup() {
  const { deps } = probeApp();
  const caller: Caller = { deps, account: () => "acme", request: {}, charge: async () => {}, settle: async () => {} };
  const { certPem, keyPem } = SANDBOX_TAXPAYER_CERTS["11111111-1"];
  const credential = await parseCertificateCredential({ "cert-data": certPem, "pkey-data": keyPem }, deps.clock.now());
  return { caller, credential, sandbox: simulatorOf(deps.sii) };
}

describe("the exchanges service", () => {
  it("answers a question about one document with the document it names", async () => {
    const { caller, credential } = await setup();
    const doc = { emisor: SANDBOX_SUPPLIER, dte: 33, folio: 1002 };
    expect(await documentAssignability(caller, credential, "0", doc)).toMatchObject({ ...doc, cedible: true, codigo: 25 });
  });

  it("registers a batch's actions in order, and a dry run sends nothing", async () => {
    const { caller, credential, sandbox } = await setup();
    const acd = { emisor: SANDBOX_SUPPLIER, dte: 33, folio: 1001, accion: "ACD" };
    const documentos = [acd];
    const preview = await respondToDocuments(caller, credential, "0", documentos, true);
    expect(preview).toMatchObject({ no_enviados: 1, documentos: [{ folio: 1001, resultado: "no_enviado", codResp: null }] });
    expect(sandbox.state.calls.get("reclamos") ?? 0).toBe(0);
    const sent = await respondToDocuments(caller, credential, "0", documentos, false);
    expect(sent).toMatchObject({ registrados: 1, documentos: [{ folio: 1001, accion: "ACD", resultado: "registrado", codigo: 0 }] });
    const { eventos } = await documentEvents(caller, credential, "0", acd);
    expect(eventos.map((e) => e.codigo)).toContain("ACD");
  });
});
