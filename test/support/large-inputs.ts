// The hostile and the largest allowed requests, built once here for the tests that pin what the
// gateway answers them (test/node/hostile-inputs.test.ts, big-envelopes.test.ts) and for the bench
// that measures how long they hold the event loop (bench/stall.ts). No vitest here: the bench runs
// outside it.
import forge from "node-forge";
import { bytesToBase64 } from "../../src/lib/encoding.ts";
import { MAX_BATCH_BOLETAS, MAX_BATCH_DOCUMENTS, MAX_BATCH_LINES, MAX_DOCUMENT_LINES } from "../../src/platform/batch-limits.ts";
import { EXAMPLE_ISSUER, exampleInvoiceOf } from "../../src/routes/example-documents.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { MAX_AUTOR } from "../../src/sandbox/folios.ts";
import { buildCaf } from "../../src/sandbox/folios-caf.ts";
import { pbes2KeyPem } from "./pbes2-key.ts";

export const GENERAR = "/api/v1/platform/dte/documentos/generar";
export const PDF = "/api/v1/platform/dte/documentos/pdf";
export const ESCPOS = "/api/v1/platform/dte/documentos/escpos";
export const VERIFICAR = "/api/v1/platform/dte/envios/verificar?ambiente=1";
export const FORMATOS_JSON = "/api/v1/platform/dte/formatos/json";
const COMPANY = "76192083-9";
export const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
export const juanaCert = { "cert-data": juana.certPem, "pkey-data": juana.keyPem };

const b64 = (text: string) => bytesToBase64(new TextEncoder().encode(text));

/** A `generar` request body; a placeholder CAF where the request is refused before it is read. */
export const generarBody = (cert: unknown, dte: unknown, caf: string | string[] = "<AUTORIZACION/>") =>
  JSON.stringify({ auth: { cert }, dte, caf, resolucion: { fecha: "2014-08-22", numero: 80 } });

export const cafOf = (tipo: number, desde: number, hasta: number) =>
  buildCaf({ rut: COMPANY, razonSocial: "COMERCIAL SANDBOX SPA", tipo, desde, hasta, fecha: "2026-11-01" });

export const invoices = (count: number, lines: number) => Array.from({ length: count }, (_, i) => exampleInvoiceOf(1 + i, lines));

export const boleta = (folio: number) => ({
  Encabezado: { IdDoc: { TipoDTE: 39, Folio: folio }, Emisor: EXAMPLE_ISSUER, Receptor: { RUTRecep: "66666666-6" } },
  Detalle: [
    { NmbItem: "Café", QtyItem: 2, PrcItem: 1_990 },
    { NmbItem: "Medialuna", QtyItem: 1, PrcItem: 1_200 },
  ],
});
export const boletas = (count: number) => Array.from({ length: count }, (_, i) => boleta(1 + i));

/** A request: where it goes, its body, and the status it is answered with. */
export interface Input {
  name: string;
  path: string;
  body: () => Promise<string>;
  status: number;
}

/** The largest envelopes `generar` signs in one request (the sandbox grants MAX_AUTOR folios a CAF). */
export const LARGEST = {
  invoices: {
    name: `generar, ${MAX_BATCH_DOCUMENTS} invoices (type 33) through two CAF ranges`,
    path: GENERAR,
    body: async () =>
      generarBody(juanaCert, invoices(MAX_BATCH_DOCUMENTS, 1), [
        await cafOf(33, 1, MAX_AUTOR),
        await cafOf(33, MAX_AUTOR + 1, 2 * MAX_AUTOR),
      ]),
    status: 200,
  },
  boletas: {
    name: `generar, ${MAX_BATCH_BOLETAS} boletas (type 39)`,
    path: GENERAR,
    body: async () => generarBody(juanaCert, boletas(MAX_BATCH_BOLETAS), [await cafOf(39, 1, MAX_BATCH_BOLETAS)]),
    status: 200,
  },
  lines: {
    name: `generar, ${MAX_BATCH_LINES} Detalle lines in all (60 invoices of ${MAX_BATCH_LINES / 60})`,
    path: GENERAR,
    body: async () => generarBody(juanaCert, invoices(60, MAX_BATCH_LINES / 60), [await cafOf(33, 1, 100)]),
    status: 200,
  },
} satisfies Record<string, Input>;

/** One over each limit: refused before any work. */
export const OVER = {
  documents: {
    name: `generar, ${MAX_BATCH_DOCUMENTS + 1} invoices`,
    path: GENERAR,
    body: async () => generarBody(juanaCert, invoices(MAX_BATCH_DOCUMENTS + 1, 1), [await cafOf(33, 1, 10)]),
    status: 400,
  },
  boletas: {
    name: `generar, ${MAX_BATCH_BOLETAS + 1} boletas`,
    path: GENERAR,
    body: async () => generarBody(juanaCert, boletas(MAX_BATCH_BOLETAS + 1), [await cafOf(39, 1, MAX_BATCH_BOLETAS + 1)]),
    status: 400,
  },
  lines: {
    name: `generar, ${MAX_BATCH_LINES + MAX_DOCUMENT_LINES} Detalle lines in all`,
    path: GENERAR,
    body: async () => generarBody(juanaCert, invoices(MAX_BATCH_LINES / MAX_DOCUMENT_LINES + 1, MAX_DOCUMENT_LINES)),
    status: 400,
  },
} satisfies Record<string, Input>;

/** The operations that read an uploaded envelope, with the answer asked for. */
export const READERS = [
  { name: "envios/verificar", path: VERIFICAR, accept: "application/json", weight: 3 },
  { name: "documentos/pdf", path: PDF, accept: "application/pdf", weight: 2 },
  { name: "documentos/pdf (JSON)", path: PDF, accept: "application/json", weight: 2 },
  { name: "documentos/escpos", path: ESCPOS, accept: "application/octet-stream", weight: 1 },
  { name: "documentos/escpos (JSON)", path: ESCPOS, accept: "application/json", weight: 1 },
  { name: "formatos/json", path: FORMATOS_JSON, accept: "application/json", weight: 1 },
] as const;

/** The fields the PDF needs besides the XML (its stamp block names the SII office). */
export const PDF_FIELDS = { oficina_sii: "PROVIDENCIA" } as const;

/** A reading operation's body for an envelope `generar` answered (its `envio_xml`), as bytes. */
export const readingBody = (envio: string, path: string) =>
  Uint8Array.from(new TextEncoder().encode(JSON.stringify({ xml: envio, ...(path === PDF ? PDF_FIELDS : {}) })));

/** `asn` with every INTEGER equal to `from` (an iteration count here) set to `to`, inside nested DER too. */
function withCount(asn: forge.asn1.Asn1, from: number, to: number): forge.asn1.Asn1 {
  const fromBytes = forge.asn1.integerToDer(from).getBytes();
  const toBytes = forge.asn1.integerToDer(to).getBytes();
  const walk = (node: forge.asn1.Asn1): boolean => {
    if (node.tagClass === forge.asn1.Class.UNIVERSAL && node.type === forge.asn1.Type.INTEGER && node.value === fromBytes) {
      node.value = toBytes;
      return true;
    }
    if (Array.isArray(node.value)) return node.value.map(walk).some(Boolean);
    if (node.type === forge.asn1.Type.OCTETSTRING && typeof node.value === "string" && node.value.startsWith("0")) {
      try {
        const inner = forge.asn1.fromDer(node.value);
        if (walk(inner)) {
          node.value = forge.asn1.toDer(inner).getBytes();
          return true;
        }
      } catch {
        // data, not DER
      }
    }
    return false;
  };
  if (!walk(asn)) throw new Error(`no INTEGER ${from} to set to ${to}`);
  return asn;
}

const juanaKey = () => forge.pki.privateKeyFromPem(juana.keyPem);

const comments = `<DTE>${"<!--".repeat(60_000)}`;
const invalidLines = (count: number) => Array.from({ length: count }, () => ({ NmbItem: "x", QtyItem: -1, PrcItem: -1 }));
const oneLine = (line: unknown) => JSON.stringify({ dte: { ...exampleInvoiceOf(1, 0), Detalle: [line] } });

/** Inputs that made the gateway's work grow faster than their size (or would, without a limit). */
export const HOSTILE = {
  pkcs8Iterations: {
    name: "an encrypted PKCS#8 key asking for 2 000 000 iterations",
    path: GENERAR,
    body: async () => {
      const info = forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(juanaKey()));
      const encrypted = withCount(forge.pki.encryptPrivateKeyInfo(info, "sandbox", { algorithm: "aes256", count: 2049 }), 2049, 2_000_000);
      const cert = { "cert-data": juana.certPem, "pkey-data": forge.pki.encryptedPrivateKeyToPem(encrypted), passphrase: "sandbox" };
      return generarBody(cert, exampleInvoiceOf(1, 1));
    },
    status: 400,
  },
  pfxIterations: {
    name: "a PFX whose MAC and bags ask for 2 000 000 iterations",
    path: GENERAR,
    body: async () => {
      const pfx = forge.pkcs12.toPkcs12Asn1(juanaKey(), [forge.pki.certificateFromPem(juana.certPem)], "sandbox", {
        algorithm: "3des",
        count: 2049,
      });
      const cert = { "pfx-data": forge.util.encode64(forge.asn1.toDer(withCount(pfx, 2049, 2_000_000)).getBytes()), passphrase: "sandbox" };
      return generarBody(cert, exampleInvoiceOf(1, 1));
    },
    status: 400,
  },
  pbes2AtLimit: {
    name: "a PBES2 key at the full 100 000 iterations (derived natively)",
    path: GENERAR,
    body: async () =>
      generarBody(
        { ...juanaCert, "pkey-data": await pbes2KeyPem(juana.keyPem, "sandbox", 100_000), passphrase: "sandbox" },
        exampleInvoiceOf(1, 1),
      ),
    status: 400,
  },
  beginLines: {
    name: "cert-data of 15 000 BEGIN lines (within its 256 KiB limit)",
    path: GENERAR,
    body: async () => generarBody({ ...juanaCert, "cert-data": "-----BEGIN A-----".repeat(15_000) }, exampleInvoiceOf(1, 1)),
    status: 400,
  },
  commentsFormatos: {
    name: "formatos/json, 240 KB of unclosed comments",
    path: FORMATOS_JSON,
    body: async () => JSON.stringify({ xml: b64(comments) }),
    status: 400,
  },
  commentsVerificar: {
    name: "envios/verificar, 240 KB of unclosed comments",
    path: VERIFICAR,
    body: async () => JSON.stringify({ xml: b64(comments) }),
    status: 400,
  },
  commentsPdf: {
    name: "documentos/pdf, 240 KB of unclosed comments",
    path: PDF,
    body: async () => JSON.stringify({ xml: b64(comments), ...PDF_FIELDS }),
    status: 400,
  },
  // The CAF field takes at most 64 KiB: 64 KB of the same comments.
  commentsCaf: {
    name: "generar, a CAF of 64 KB of unclosed comments",
    path: GENERAR,
    body: async () => generarBody(juanaCert, exampleInvoiceOf(1, 1), `<DTE>${"<!--".repeat(16_000)}`),
    status: 400,
  },
  spacesName: {
    name: "formatos/json, a name of 50 000 spaces",
    path: FORMATOS_JSON,
    body: async () => oneLine({ NmbItem: `a${" ".repeat(50_000)}b`, QtyItem: 1, PrcItem: 1_000 }),
    status: 200,
  },
  digitsQuantity: {
    name: "formatos/json, a quantity of 50 000 digits and a letter",
    path: FORMATOS_JSON,
    body: async () => oneLine({ NmbItem: "x", QtyItem: `${"1".repeat(50_000)}x`, PrcItem: 1_000 }),
    status: 400,
  },
  unclosedTed: {
    name: "documentos/pdf, a DTE with 40 000 unclosed <TED in a comment",
    path: PDF,
    body: async () =>
      JSON.stringify({
        xml: b64(
          `<DTE version="1.0"><Documento ID="F1T33"><Encabezado><IdDoc><TipoDTE>33</TipoDTE><Folio>1</Folio></IdDoc></Encabezado><!--${"<TED ".repeat(40_000)}--></Documento></DTE>`,
        ),
        ...PDF_FIELDS,
      }),
    status: 200,
  },
  tooManyLines: {
    name: "formatos/json, 125 000 invalid lines (250 000 problems)",
    path: FORMATOS_JSON,
    body: async () => JSON.stringify({ dte: { ...exampleInvoiceOf(1, 0), Detalle: invalidLines(125_000) } }),
    status: 422,
  },
  errorPerLine: {
    name: `formatos/json, ${MAX_DOCUMENT_LINES} lines with 2 errors each`,
    path: FORMATOS_JSON,
    body: async () => JSON.stringify({ dte: { ...exampleInvoiceOf(1, 0), Detalle: invalidLines(MAX_DOCUMENT_LINES) } }),
    status: 400,
  },
} satisfies Record<string, Input>;
