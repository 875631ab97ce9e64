// The DTE engine in this process, one core: documents generated and signed per second (TED with the
// CAF key, the DTE's and the envelope's XMLDSig), PDFs rendered per second, and the cost of a
// certificate given as PFX on first use and on every later request of the isolate. The signing rate
// is set against its limit: node:crypto (OpenSSL) making only the signatures one document needs,
// timed in the same run, in alternating slices, so both see the same machine.
import { spawnSync } from "node:child_process";
import { createPrivateKey, type KeyObject, sign } from "node:crypto";
import { clearCredentialCache, parseCertificateCredential } from "../src/certificates/credentials.ts";
import { generateDocuments } from "../src/dte/generate/generate.ts";
import type { Node } from "../src/dte/normalize/normalize.ts";
import { printedDocument } from "../src/dte/render/model.ts";
import { pdfDocument } from "../src/dte/render/pdf.ts";
import { type DteEntry, readEnvelope } from "../src/dte/verify/envelope.ts";
import { base64ToBytes } from "../src/lib/encoding.ts";
import { elementText } from "../src/lib/xml.ts";
import { EXAMPLE_ISSUER } from "../src/routes/example-documents.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../src/sandbox/credentials/index.ts";
import { buildCaf, sandboxCafPublicKey } from "../src/sandbox/folios-caf.ts";

export interface EngineFigure {
  name: string;
  unit: string;
  value: number;
  /** Null for a reference figure. */
  budget: number | null;
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

/** Units, wall milliseconds and CPU microseconds (all threads) of `work` run for `seconds`. */
async function slice(
  seconds: number,
  unitsPerCall: number,
  work: (i: number) => unknown,
): Promise<{ units: number; ms: number; cpu: number }> {
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  let calls = 0;
  while (performance.now() < until) await work(calls++);
  const cpu = process.cpuUsage(cpuBefore);
  return { units: calls * unitsPerCall, ms: performance.now() - started, cpu: cpu.user + cpu.system };
}

/**
 * The signatures of one document of a batch, and nothing else: the DTE's XMLDSig (RSA-SHA1 with the
 * 2048-bit certificate key), the TED's FRMT (RSA-SHA1 with the CAF's key: 512 bits, as the SII's
 * and the sandbox's CAFs have) and its share of the envelope's XMLDSig.
 */
function referenceSigner(certificateKey: KeyObject, cafKey: KeyObject): () => void {
  // What is signed: a SignedInfo and a DD are a few hundred bytes; RSA's cost does not depend on it.
  const signedInfo = new TextEncoder().encode("<SignedInfo>".padEnd(700, "x"));
  const dd = new TextEncoder().encode("<DD>".padEnd(400, "x"));
  return () => {
    for (let i = 0; i < BATCH; i++) {
      sign("sha1", dd, cafKey);
      sign("sha1", signedInfo, certificateKey);
    }
    sign("sha1", signedInfo, certificateKey);
  };
}

/**
 * `openssl speed` for the two key sizes, as documents per CPU-second (its default divisor is user
 * CPU time); null where openssl is missing or answers in another layout.
 */
function opensslLimit(seconds: number): number | null {
  const run = spawnSync("openssl", ["speed", "-seconds", String(seconds), "rsa2048", "rsa512"], { encoding: "utf8" });
  if (run.status !== 0) return null;
  const signsPerSecond = (bits: number) =>
    Number(new RegExp(`^rsa\\s+${bits} bits\\s+\\S+\\s+\\S+\\s+([\\d.]+)`, "m").exec(run.stdout)?.[1]);
  const [rsa2048, rsa512] = [signsPerSecond(2048), signsPerSecond(512)];
  if (!(rsa2048 > 0 && rsa512 > 0)) return null;
  return 1 / ((1 + 1 / BATCH) / rsa2048 + 1 / rsa512);
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

  // Engine and reference in alternating slices (the machine is shared: noise hits both alike); the
  // ratio of the sums is the figure, the rounds' lowest and highest ratios its spread.
  const referenceSigns = referenceSigner(createPrivateKey(juana.keyPem), createPrivateKey(elementText(caf, "RSASK") ?? ""));
  const rounds = quick ? 4 : 8;
  const engine = { units: 0, ms: 0, cpu: 0 };
  const limit = { units: 0, ms: 0, cpu: 0 };
  const ratios: number[] = [];
  let folio = 1;
  const engineBatch = () => {
    folio += BATCH;
    return generateDocuments(request(folio), context);
  };
  // Both warmed first, so both are measured with their code optimized (JIT) and their keys read.
  await slice(seconds / 4, BATCH, engineBatch);
  await slice(seconds / 8, BATCH, referenceSigns);
  for (let round = 0; round < rounds; round++) {
    const e = await slice(seconds / rounds, BATCH, engineBatch);
    const l = await slice(seconds / rounds, BATCH, referenceSigns);
    for (const [sum, part] of [
      [engine, e],
      [limit, l],
    ] as const) {
      sum.units += part.units;
      sum.ms += part.ms;
      sum.cpu += part.cpu;
    }
    ratios.push(e.units / e.cpu / (l.units / l.cpu));
  }
  const generated = { wall: (engine.units * 1000) / engine.ms, cpu: (engine.units * 1e6) / engine.cpu };
  const limitCpu = (limit.units * 1e6) / limit.cpu;
  const openssl = quick ? null : opensslLimit(2);

  const sample = await generateDocuments(request(1), context);
  // Read as the pdf operation reads an upload: the DTE's one Documento in the parsed file.
  const signed = readEnvelope(base64ToBytes(sample.documentos[0]?.dte_xml as string));
  const printed = printedDocument(signed.doc, (signed.dtes[0] as DteEntry).documento);
  const pdfOptions = {
    papel: "carta" as const,
    cedible: false,
    copias: 1,
    resolucion: { numero: 80, fecha: "2014-08-22" },
    oficina_sii: "PROVIDENCIA",
    logo: null,
  };
  // Warmed first like the signing figures, so the page is measured with its code optimized (the
  // encoder's loops are most of a page) rather than partly interpreted.
  await rate(seconds / 4, 1, () => pdfDocument([printed], pdfOptions));
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
    {
      name: "DTE signatures alone (node:crypto: 2048-bit DTE + 512-bit TED + 1/50 envelope), per CPU-second",
      unit: "docs/s",
      value: limitCpu,
      budget: null,
      better: "higher",
    },
    {
      name: `DTE generate + sign / signatures alone, per CPU-second (${rounds} rounds: ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
      unit: "ratio",
      value: generated.cpu / limitCpu,
      budget: 0.85, // issue 25, in full runs
      better: "higher",
    },
    ...(openssl === null
      ? []
      : [
          {
            name: "DTE signatures alone (openssl speed rsa2048 rsa512), per CPU-second",
            unit: "docs/s",
            value: openssl,
            budget: null,
            better: "higher" as const,
          },
        ]),
    { name: "PDF (letter, with the PDF417 stamp), per CPU-second", unit: "docs/s", value: pdfs.cpu, budget: 2000, better: "higher" }, // issue 35
    { name: "PFX certificate, first use in an isolate", unit: "ms", value: firstPfx, budget: 1000, better: "lower" },
    { name: "PFX certificate, each later use", unit: "ms", value: repeatPfx, budget: 1, better: "lower" },
  ];
}
