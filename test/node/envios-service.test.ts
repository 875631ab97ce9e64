// The submissions' service called as a service: a Caller built from the test app's deps, no HTTP
// request and no Hono context. Verifying (with the SII's check charged through the caller),
// sending and asking for the status run against the sandbox as the routes run them.
import { describe, expect, it } from "vitest";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import { inspectEnvelope } from "../../src/dte/verify/envelope.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { buildCaf } from "../../src/sandbox/folios-caf.ts";
import { sendEnvelope, uploadStatus, verifyEnvelope } from "../../src/services/envios.ts";
import { testDeps } from "../support/app.ts";
import { testCaller } from "../support/caller.ts";
import { signedEnvelope } from "../support/envelope.ts";

const COMPANY = "76192083-9";
const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];

describe("the submissions' service", () => {
  it("verifies, sends and follows an envelope for a caller that is no HTTP request", async () => {
    const caller = testCaller(testDeps().deps, "account-of-a-job");
    const { charged } = caller;
    const credential = await parseCertificateCredential({ "cert-data": juana.certPem, "pkey-data": juana.keyPem }, new Date());
    const caf = await buildCaf({ rut: COMPANY, razonSocial: "COMERCIAL SANDBOX SPA", tipo: 33, desde: 1, hasta: 100, fecha: "2026-11-01" });
    // Folios past the 10 the sandbox company already issued.
    const docs = [30, 31].map((folio) => ({ tipo: 33, folio, receptor: "22222222-2", total: 11_900, caf }));
    const report = await inspectEnvelope(await signedEnvelope(credential, COMPANY, docs));

    const local = await verifyEnvelope(caller, { report, ambiente: "0", credential: null });
    expect([local.sobre?.firma.valido, local.documentos.map((d) => d.timbre.valido)]).toEqual([true, [true, true]]);
    expect(charged).toEqual([]);

    const before = await verifyEnvelope(caller, { report, ambiente: "0", credential });
    expect(charged).toEqual([[2, "this call"]]);
    expect(before.documentos.map((d) => d.sii?.estado)).toEqual(["FAU", "FAU"]);

    const readCertificate = async () => credential;
    const preview = await sendEnvelope(caller, { report, ambiente: "0", archivo: undefined, readCertificate, dryRun: true });
    expect(preview).toMatchObject({ track_id: null, servicio: "dte", archivo: `EnvioDTE_${COMPANY}_30.xml` });
    const sent = await sendEnvelope(caller, { report, ambiente: "0", archivo: undefined, readCertificate, dryRun: false });
    expect(sent).toMatchObject({
      estado: "REC",
      emisor: COMPANY,
      documentos: [
        { tipo: 33, folio: 30 },
        { tipo: 33, folio: 31 },
      ],
    });
    expect(sent.track_id).toMatch(/^\d+$/);

    const status = await uploadStatus(caller, { emisor: COMPANY, track_id: sent.track_id!, ambiente: "0", servicio: "dte", credential });
    expect(status.track_id).toBe(sent.track_id);
    const after = await verifyEnvelope(caller, { report, ambiente: "0", credential });
    expect([after.valido, after.documentos.map((d) => d.sii?.estado)]).toEqual([true, ["DOK", "DOK"]]);
  });
});
