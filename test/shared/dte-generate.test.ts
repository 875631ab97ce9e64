// The generator where it runs in production too: in workerd (WebCrypto's RSA on the Worker) as in
// Node, a factura and a boleta are generated and pass the engine's own verifier.
import { describe, expect, it } from "vitest";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import { generateDocuments } from "../../src/dte/generate/generate.ts";
import { inspectEnvelope } from "../../src/dte/verify/envelope.ts";
import { verifyStamp } from "../../src/dte/verify/timbre.ts";
import { base64ToBytes } from "../../src/lib/encoding.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { buildCaf, sandboxCafPublicKey } from "../../src/sandbox/folios-caf.ts";

const COMPANY = "76192083-9";
const NOW = new Date("2026-11-20T13:00:00Z");

describe("generating in this runtime", () => {
  it.each([33, 39])("type %i: signed, stamped, and every check of the verifier passes", async (tipo) => {
    const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
    const signer = await parseCertificateCredential({ "cert-data": juana.certPem, "pkey-data": juana.keyPem }, NOW);
    const key = sandboxCafPublicKey();
    const caf = await buildCaf({ rut: COMPANY, razonSocial: "COMERCIAL SANDBOX SPA", tipo, desde: 1, hasta: 10, fecha: "2026-11-01" });
    const out = await generateDocuments(
      {
        documents: [
          {
            Encabezado: {
              IdDoc: { TipoDTE: tipo, Folio: 3 },
              Emisor: {
                RUTEmisor: COMPANY,
                RznSoc: "Comercial Sandbox SpA",
                GiroEmis: "Comercio",
                Acteco: 479100,
                DirOrigen: "Providencia 1",
                CmnaOrigen: "Providencia",
              },
              Receptor: {
                RUTRecep: "22222222-2",
                RznSocRecep: "Pedro Muñoz & Cía.",
                GiroRecep: "Servicios",
                DirRecep: "Calle 1",
                CmnaRecep: "Ñuñoa",
              },
            },
            Detalle: { NmbItem: "Café 'de grano'", QtyItem: 2, PrcItem: 4_990 },
          },
        ],
        cafs: [caf],
        resolucion: { fecha: "2014-08-22", numero: 80 },
        normalizar: true,
      },
      { signer, now: NOW, cafKeys: new Map([[key.idk, key]]) },
    );
    const report = await inspectEnvelope(base64ToBytes(out.envio_xml));
    expect(report.problems).toEqual([]);
    expect(report.firma?.valido).toBe(true);
    const [doc] = report.documentos;
    expect(doc?.firma?.valido).toBe(true);
    const stamp = await verifyStamp(report.doc, doc?.documento as never, new Map([[key.idk, key]]));
    expect([stamp.timbre.valido, stamp.caf.valido, stamp.coherencia.valido]).toEqual([true, true, true]);
  });
});
