// Every reader of an uploaded `xml` (pdf, escpos, formatos/json, envios/verificar) applies the same
// limits: documents per envelope, Detalle lines per document and in all. They are counted by the
// screen that reads the XML before it is parsed, so an upload over a limit costs no parse, no
// canonicalization and no signature check. Each upload here is also not well-formed past the
// screen (a closing tag naming another element, which only the parser notices): answered with
// the limit, not with the parser's refusal, its limits were checked before the parse.
import { describe, expect, it } from "vitest";
import { base64ToBytes, bytesToBase64 } from "../../src/lib/encoding.ts";
import { CHARGE_BLOCK_LINES, MAX_BATCH_DOCUMENTS, MAX_BATCH_LINES, MAX_DOCUMENT_LINES, unitsFor } from "../../src/platform/batch-limits.ts";
import { EXAMPLE_ENVELOPE } from "../../src/routes/example-documents.ts";
import { errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const READERS = [
  "/api/v1/platform/dte/documentos/pdf",
  "/api/v1/platform/dte/documentos/escpos",
  "/api/v1/platform/dte/formatos/json",
  "/api/v1/platform/dte/envios/verificar",
];

/** A DTE whose Documento holds `lines` Detalle elements. */
const dte = (lines: number, extra = "") => `<DTE version="1.0"><Documento ID="D">${"<Detalle/>".repeat(lines)}${extra}</Documento></DTE>`;
/** An EnvioDTE of `documents` DTEs of `lines` lines each; `broken`: one closing tag names another element. */
const envelope = (documents: number, lines: number, broken = true) =>
  `<EnvioDTE><SetDTE ID="S">${dte(lines).repeat(documents)}</SetDTE>${broken ? "</Caratula>" : ""}</EnvioDTE>`;

/** Text whose every character is one byte (ISO-8859-1), as those bytes. */
const latin1 = (text: string) => Uint8Array.from(text, (ch) => ch.charCodeAt(0));

async function post(path: string, xml: string, plan?: { daily_units: number; monthly_units: number }) {
  const t = probeApp(undefined, { maxBodyBytes: 4 * 1024 * 1024 });
  const token = await tokenFor(t.deps, plan ? { plan } : {});
  const office = path.endsWith("/documentos/pdf") ? { oficina_sii: "PROVIDENCIA" } : {};
  const res = await postJson(t.app, token.secret, path, { xml: bytesToBase64(latin1(xml)), ...office });
  return { status: res.status, units: res.headers.get("x-quota-units"), error: await errorOf(res) };
}

const CASES: [string, string, string][] = [
  [
    "a document's Detalle lines",
    `<DTE version="1.0"><Documento ID="D">${"<Detalle/>".repeat(MAX_DOCUMENT_LINES + 1)}</Documentos></DTE>`,
    `xml document 1 has ${MAX_DOCUMENT_LINES + 1} Detalle lines; a document has at most ${MAX_DOCUMENT_LINES}`,
  ],
  [
    "a later document's Detalle lines, in an envelope",
    `<EnvioDTE><SetDTE>${dte(2)}${dte(MAX_DOCUMENT_LINES + 1)}</SetDTE></Caratula></EnvioDTE>`,
    `xml document 2 has ${MAX_DOCUMENT_LINES + 1} Detalle lines; a document has at most ${MAX_DOCUMENT_LINES}`,
  ],
  [
    "the Detalle lines of a request",
    envelope(MAX_BATCH_LINES / MAX_DOCUMENT_LINES + 1, MAX_DOCUMENT_LINES),
    `xml has ${MAX_BATCH_LINES + MAX_DOCUMENT_LINES} Detalle lines in all; at most ${MAX_BATCH_LINES} per request (send the rest in further requests)`,
  ],
  [
    "the documents of an EnvioDTE",
    envelope(MAX_BATCH_DOCUMENTS + 1, 0),
    `xml holds ${MAX_BATCH_DOCUMENTS + 1} documents; at most ${MAX_BATCH_DOCUMENTS} per EnvioDTE (the SII's maximum)`,
  ],
  [
    "the documents of an EnvioBOLETA",
    `<EnvioBOLETA><SetDTE>${dte(1).repeat(501)}</SetDTE></Caratula></EnvioBOLETA>`,
    "xml holds 501 documents; at most 500 per EnvioBOLETA (the SII's maximum)",
  ],
];

describe("the limits of an uploaded xml, checked before it is parsed", () => {
  it.each(
    READERS.flatMap((path) => CASES.map(([what, xml, message]) => ({ label: `${path.split("/").pop()}: ${what}`, path, xml, message }))),
  )("$label", async ({ path, xml, message }) => {
    const { status, units, error } = await post(path, xml);
    expect([status, error.error_code, error.message, units]).toEqual([400, "VALIDATION_ERROR", message, "0"]);
    expect(error.errors).toEqual([{ path: "xml", location: "body", message: message.slice("xml ".length) }]);
  });

  it("verificar: a genuine envelope whose Detalle is copied past the limit is refused, free (it was verified for 2 units)", async () => {
    const genuine = String.fromCharCode(...base64ToBytes(EXAMPLE_ENVELOPE));
    const line = /<Detalle>[\s\S]*?<\/Detalle>/.exec(genuine)?.[0] ?? "";
    expect(line).not.toBe("");
    const copied = genuine.replace(line, line.repeat(MAX_DOCUMENT_LINES + 1));
    const { status, units, error } = await post(READERS[3] as string, copied);
    expect([status, units, error.message]).toEqual([
      400,
      "0",
      `xml document 1 has ${MAX_DOCUMENT_LINES + 1} Detalle lines; a document has at most ${MAX_DOCUMENT_LINES}`,
    ]);
  });

  it.each([
    [READERS[0], 2],
    [READERS[1], 1],
    [READERS[2], 1],
    [READERS[3], 3],
  ])(
    "%s charges the documents before the parse: a caller who cannot pay for them gets 429, not the parse's answer",
    async (path, weight) => {
      // 26 documents are two blocks; the plan pays the first (the operation's weight) only.
      const { status, units, error } = await post(path as string, envelope(26, 1), { daily_units: weight, monthly_units: 100 });
      expect([status, error.error_code, error.details?.units_needed, units]).toEqual([429, "QUOTA_EXCEEDED", weight, "0"]);
    },
  );

  it("verificar charges an upload by its Detalle lines too: 60 documents of 1000 lines are 60 blocks, not 3", async () => {
    const t = probeApp(undefined, { maxBodyBytes: 4 * 1024 * 1024 });
    const token = await tokenFor(t.deps);
    const xml = envelope(MAX_BATCH_LINES / MAX_DOCUMENT_LINES, MAX_DOCUMENT_LINES, false);
    const res = await postJson(t.app, token.secret, READERS[3] as string, { xml: bytesToBase64(latin1(xml)) });
    expect([res.status, res.headers.get("x-quota-units")]).toEqual([200, String((3 * MAX_BATCH_LINES) / CHARGE_BLOCK_LINES)]);
    expect([unitsFor(2, 1, MAX_DOCUMENT_LINES), unitsFor(2, 26, 1001), unitsFor(1, MAX_BATCH_DOCUMENTS, MAX_BATCH_DOCUMENTS)]).toEqual([
      2, 4, 80,
    ]);
  });

  it("counts a Documento's own Detalle lines only: a document at the limit is read (and then found not well-formed)", async () => {
    // Detalle elements deeper in the document (a wrapper's) are not its lines.
    const xml = `<DTE version="1.0"><Documento ID="D">${"<Detalle/>".repeat(MAX_DOCUMENT_LINES)}<Otro><Detalle/></Otro></Documentos></DTE>`;
    for (const path of READERS) {
      const { status, error } = await post(path, xml);
      expect([path, status, error.message]).toEqual([path, 400, expect.stringMatching(/^xml cannot be read: not well-formed XML/)]);
    }
  });

  it("refuses a root that is no DTE or envelope before the parse", async () => {
    const { status, error } = await post(READERS[3] as string, "<Factura><Detalle/></Facturas>");
    expect([status, error.message]).toEqual([400, "xml cannot be read: the root element is <Factura>, not EnvioDTE, EnvioBOLETA or DTE"]);
  });
});
