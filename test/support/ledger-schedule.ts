// The seeded random schedule of generar calls the folio ledger's property tests run (ledger-kill.ts across
// processes with kill -9, ledger-generar-cases.ts across apps in one process): keys of a small pool, so
// keys are reused with their own request or another one, requests the engine refuses at a random document
// after their folios were taken, and (in-process only) calls without a key.

import { seededRandom } from "../../src/lib/seeded-random.ts";
import { EXAMPLE_EXEMPT_INVOICE } from "../../src/routes/example-documents.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";

const CALLS = 30;
/** Calls in flight at once (a fast runtime would otherwise have answered all of them before a kill lands). */
export const LEDGER_CALLS_IN_FLIGHT = 8;
const KEYS = 10;
const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
const { Folio: _folio, ...idDoc } = EXAMPLE_EXEMPT_INVOICE.Encabezado.IdDoc;
const invoice = (variant: number) => ({
  ...EXAMPLE_EXEMPT_INVOICE,
  Encabezado: {
    ...EXAMPLE_EXEMPT_INVOICE.Encabezado,
    IdDoc: idDoc,
    Receptor: { ...EXAMPLE_EXEMPT_INVOICE.Encabezado.Receptor, RznSocRecep: `CLIENTE ${variant}` },
  },
});

/** `count` invoices without Folio; `refusedAt`: that one names another issuer, so the engine refuses the request after folios were taken. */
export function requestBody(count: number, variant: number, refusedAt?: number): string {
  const dte = Array.from({ length: count }, (_, i) => {
    const doc = invoice(variant);
    if (i !== refusedAt) return doc;
    return { ...doc, Encabezado: { ...doc.Encabezado, Emisor: { ...doc.Encabezado.Emisor, RUTEmisor: "76086428-5" } } };
  });
  return JSON.stringify({
    auth: { cert: { "cert-data": juana.certPem, "pkey-data": juana.keyPem } },
    dte,
    resolucion: { fecha: "2014-08-22", numero: 80 },
  });
}

/** A small seeded generator: a schedule is its seed's, printed on failure; `random(n)` is 0 to n - 1. */
function random(seed: number): (n: number) => number {
  const next = seededRandom(seed);
  return (n) => Math.floor(next() * n);
}

export interface Call {
  /** Undefined: a call without Idempotency-Key. */
  key?: string;
  body: string;
  /** Whether the engine refuses it (400), whatever happens around it. */
  refused: boolean;
}

/** The schedule of `seed`, and after how many answers a kill lands. */
export function ledgerSchedule(seed: number, options: { unkeyed: boolean }): { calls: Call[]; killAfter: number } {
  const pick = random(seed);
  const usual = Array.from({ length: KEYS }, (_, k) => requestBody(1 + pick(3), k));
  const calls = Array.from({ length: CALLS }, (): Call => {
    const k = pick(KEYS);
    const key = options.unkeyed && pick(5) === 0 ? undefined : `key-${k}`;
    const roll = pick(10);
    if (roll < 6) return { key, body: usual[k] as string, refused: false };
    if (roll < 8) return { key, body: requestBody(1 + pick(3), 100 + pick(1000)), refused: false };
    // Refused at the second document or later: the first names the issuer whose ledger gives the folios.
    const count = 2 + pick(3);
    return { key, body: requestBody(count, 2000 + pick(1000), 1 + pick(count - 1)), refused: true };
  });
  return { calls, killAfter: 2 + pick(8) };
}

/** The folios of a generar answer's text. */
export const foliosIn = (text: string): number[] =>
  (JSON.parse(text) as { data: { documentos: { folio: number }[] } }).data.documentos.map((d) => d.folio);
