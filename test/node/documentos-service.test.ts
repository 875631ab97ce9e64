// The documents' service called as a service, with no HTTP request: an upload already read is drawn
// as receipts (the carátula's resolution printed when the caller gives none), and a document is
// normalized as of the day in Chile of the caller's clock.
import { describe, expect, it } from "vitest";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import { readEnvelope } from "../../src/dte/verify/envelope.ts";
import { EXAMPLE_INVOICE } from "../../src/routes/example-documents.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { buildCaf } from "../../src/sandbox/folios-caf.ts";
import { normalizeDocument, renderEscpos, resolucionOf } from "../../src/services/documentos.ts";
import { testDeps } from "../support/app.ts";
import { signedEnvelope } from "../support/envelope.ts";

const COMPANY = "76192083-9";
const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];

describe("the documents' service", () => {
  it("draws an upload's receipts with the carátula's resolution", async () => {
    const credential = await parseCertificateCredential({ "cert-data": juana.certPem, "pkey-data": juana.keyPem }, new Date());
    const caf = await buildCaf({ rut: COMPANY, razonSocial: "COMERCIAL SANDBOX SPA", tipo: 33, desde: 1, hasta: 100, fecha: "2026-11-01" });
    const docs = [42, 43].map((folio) => ({ tipo: 33, folio, receptor: "22222222-2", total: 11_900, caf }));
    const contents = readEnvelope(await signedEnvelope(credential, COMPANY, docs));
    const resolucion = resolucionOf(undefined, contents);
    expect(resolucion?.fecha).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(resolucionOf({ numero: 7, fecha: "2020-01-01" }, contents)).toEqual({ numero: 7, fecha: "2020-01-01" });

    const { escpos, documentos } = await renderEscpos(contents, { papel: "80mm", codepage: "WPC1252" });
    expect(documentos).toEqual([
      { tipo: 33, folio: 42 },
      { tipo: 33, folio: 43 },
    ]);
    const text = Buffer.from(escpos).toString("latin1");
    // One receipt per document, each opened with ESC @ and carrying the resolution's number and year.
    expect(text.split("\x1b@").length - 1).toBe(2);
    expect(text.split(`Res. N° ${resolucion?.numero} de ${resolucion?.fecha.slice(0, 4)}`).length - 1).toBe(2);
  });

  it("normalizes a document as of the caller's day in Chile", () => {
    const { deps } = testDeps();
    const caller = { deps: { ...deps, clock: { now: () => new Date("2026-03-01T02:00:00Z") } } };
    const { dte } = normalizeDocument(caller, structuredClone(EXAMPLE_INVOICE));
    // 02:00 UTC on 1 March is still 28 February in Santiago.
    expect((dte.Encabezado as { IdDoc: { FchEmis: string } }).IdDoc.FchEmis).toBe("2026-02-28");
  });
});
