// The DTE engine in this process, one core: documents generated and signed per second (TED with the
// CAF key, the DTE's and the envelope's XMLDSig), PDFs rendered per second, and the cost of a
// certificate given as PFX on first use and on every later request of the isolate.
import { clearCredentialCache, parseCertificateCredential } from "../src/dte/credentials.ts";
import { generateDocuments } from "../src/dte/generate/generate.ts";
import type { Node } from "../src/dte/normalize/normalize.ts";
import { printedDocument } from "../src/dte/render/model.ts";
import { pdfDocument } from "../src/dte/render/pdf.ts";
import { parseXml } from "../src/dte/xml/parse.ts";
import { base64ToBytes } from "../src/lib/encoding.ts";
import { decodeLatin1 } from "../src/lib/latin1.ts";
import { EXAMPLE_ISSUER } from "../src/routes/documentos/examples.ts";
import { buildCaf, sandboxCafPublicKey } from "../src/sandbox/caf.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../src/sandbox/credentials/index.ts";

export interface EngineFigure {
  name: string;
  unit: string;
  value: number;
  budget: number;
  better: "higher" | "lower";
}

const COMPANY = "76192083-9";
const BATCH = 50;

const invoice = (folio: number): Node => ({
  Encabezado: {
    IdDoc: { TipoDTE: 33, Folio: folio },
    Emisor: EXAMPLE_ISSUER,
    Receptor: { RUTRecep: "22222222-2", RznSocRecep: "Pedro Pérez", GiroRecep: "Servicios", DirRecep: "Calle Uno 1", CmnaRecep: "Ñuñoa" },
  },
  Detalle: [
    { NmbItem: "Asesoría contable", QtyItem: 2, PrcItem: 50_000 },
    { NmbItem: "Cable UTP cat. 6", QtyItem: 305, PrcItem: 390, DescuentoPct: 10 },
  ],
});

/**
 * Runs `work` repeatedly for `seconds`: units per second of wall time, and per second of this
 * process's CPU time (all threads: WebCrypto signs on Node's thread pool), i.e. on one core.
 */
async function rate(seconds: number, unitsPerCall: number, work: (i: number) => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  let calls = 0;
  while (performance.now() < until) await work(calls++);
  const cpu = process.cpuUsage(cpuBefore);
  const units = calls * unitsPerCall;
  return { wall: (units * 1000) / (performance.now() - started), cpu: (units * 1e6) / (cpu.user + cpu.system) };
}

export async function engineFigures(quick: boolean): Promise<EngineFigure[]> {
  const seconds = quick ? 2 : 6;
  const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
  const pedro = SANDBOX_TAXPAYER_CERTS["22222222-2"];
  const now = new Date();
  const signer = await parseCertificateCredential({ "cert-data": juana.certPem, "pkey-data": juana.keyPem }, now);
  const caf = await buildCaf({
    rut: COMPANY,
    razonSocial: "COMERCIAL SANDBOX SPA",
    tipo: 33,
    desde: 1,
    hasta: 1_000_000,
    fecha: "2026-11-01",
  });
  const key = sandboxCafPublicKey();
  const context = { signer, now, cafKeys: new Map([[key.idk, key]]) };
  const request = (first: number) => ({
    documents: Array.from({ length: BATCH }, (_, i) => invoice(first + i)),
    cafs: [caf],
    resolucion: { fecha: "2014-08-22", numero: 80 },
    normalizar: true,
  });

  const generated = await rate(seconds, BATCH, (call) => generateDocuments(request(1 + call * BATCH), context));

  const sample = await generateDocuments(request(1), context);
  const raw = decodeLatin1(base64ToBytes(sample.documentos[0]?.dte_xml as string));
  const printed = printedDocument(parseXml(raw).root, raw);
  const pdfOptions = {
    papel: "carta" as const,
    cedible: false,
    copias: 1,
    resolucion: { numero: 80, fecha: "2014-08-22" },
    oficina_sii: null,
    logo: null,
  };
  const pdfs = await rate(seconds, 1, () => pdfDocument([printed], pdfOptions));

  // A PFX: parsed once per isolate (the key derivation is the cost), then taken from the cache.
  const pfx = { "pfx-data": pedro.legacyPfxBase64, passphrase: "sandbox" };
  clearCredentialCache();
  let started = performance.now();
  await parseCertificateCredential(pfx, now);
  const firstPfx = performance.now() - started;
  const repeats = 200;
  started = performance.now();
  for (let i = 0; i < repeats; i++) await parseCertificateCredential(pfx, now);
  const repeatPfx = (performance.now() - started) / repeats;

  return [
    {
      name: `DTE generate + sign, ${BATCH} per request (TED, DTE and envelope signatures)`,
      unit: "docs/s",
      value: generated.wall,
      budget: 500,
      better: "higher",
    },
    { name: "DTE generate + sign, per CPU-second (one core)", unit: "docs/s", value: generated.cpu, budget: 500, better: "higher" },
    { name: "PDF (letter, with the PDF417 stamp), per CPU-second", unit: "docs/s", value: pdfs.cpu, budget: 100, better: "higher" },
    { name: "PFX certificate, first use in an isolate", unit: "ms", value: firstPfx, budget: 1000, better: "lower" },
    { name: "PFX certificate, each later use", unit: "ms", value: repeatPfx, budget: 1, better: "lower" },
  ];
}
