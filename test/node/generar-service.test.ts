// The generation service serves a caller that is no HTTP request: a Caller built from the test
// app's deps, a credential read from the sandbox's certificate, folios from the account's ledger.
// It charges through the caller and answers the pieces of `data` and what the ledger gave, never an envelope.
import { describe, expect, it } from "vitest";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import type { Caller } from "../../src/platform/caller.ts";
import { exampleInvoiceOf } from "../../src/routes/example-documents.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { buildCaf } from "../../src/sandbox/folios-caf.ts";
import { generarDocumentos } from "../../src/services/documentos-generar.ts";
import { addCaf } from "../../src/services/folio-ledger.ts";
import { probeApp } from "../support/app.ts";

const EMISOR = "76192083-9";

async function text(pieces: AsyncIterable<string>): Promise<string> {
  let all = "";
  for await (const piece of pieces) all += piece;
  return all;
}

/** Two invoices without Folio: the ledger gives them theirs. */
const withoutFolio = () =>
  [1, 2].map(() => {
    const invoice = exampleInvoiceOf(1, 1);
    const { Folio: _folio, ...idDoc } = invoice.Encabezado.IdDoc;
    return { ...invoice, Encabezado: { ...invoice.Encabezado, IdDoc: idDoc } };
  });

describe("the generation service", () => {
  it("signs for a Caller with folios from its ledger, charging through it: data and the ledger's use, no envelope", async () => {
    const { deps } = probeApp();
    const charged: [number, string][] = [];
    const caller: Caller = {
      deps,
      account: () => "acme",
      tokenId: () => "tok_generar_test",
      request: {},
      charge: async (units, why) => {
        charged.push([units, why]);
      },
      settle: async () => {},
    };
    const caf = await buildCaf({ rut: EMISOR, razonSocial: "COMERCIAL SANDBOX SPA", tipo: 33, desde: 1, hasta: 10, fecha: "2026-11-01" });
    await addCaf(caller, EMISOR, 33, caf);
    const { certPem, keyPem } = SANDBOX_TAXPAYER_CERTS["11111111-1"];
    const signer = await parseCertificateCredential({ "cert-data": certPem, "pkey-data": keyPem }, deps.clock.now());
    const { data, ledger } = await generarDocumentos(caller, {
      documents: withoutFolio(),
      lines: 2,
      signer,
      resolucion: { fecha: "2014-08-22", numero: 80 },
      normalizar: true,
      requestId: "service-test",
      pause: async () => {},
      weight: 2,
    });
    const answer = JSON.parse(await text(data));
    expect(answer).not.toHaveProperty("success");
    expect(answer.documentos.map((d: { folio: number }) => d.folio)).toEqual([1, 2]);
    expect(answer.sobre).toBe("EnvioDTE");
    expect(ledger).toEqual([{ tipo: 33, folios: [1, 2], disponibles: 8, bajo_umbral: false }]);
    expect(answer.folios_ledger).toEqual(ledger);
    // Two documents are one block: nothing beyond the weight the route's operation paid.
    expect(charged).toEqual([[0, "this call"]]);
  });
});
