// The largest envelopes allowed, each built once and read back by every reading operation, on the
// live Node server with two accounts: account A sends them, account B's cheap calls show it is
// answered while they run. How long they hold the event loop and how long B waits is measured and
// gated by the bench (bench/stall.ts, `npm run bench -- --stall`), not here: wall-clock budgets
// fail on a busy machine.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inspectEnvelope } from "../../src/dte/verify/envelope.ts";
import { base64ToBytes } from "../../src/lib/encoding.ts";
import { MAX_BATCH_BOLETAS, MAX_BATCH_DOCUMENTS, MAX_BATCH_LINES, MAX_DOCUMENT_LINES } from "../../src/routes/document-batch.ts";
import { Generated } from "../../src/routes/documentos/generar.ts";
import { exampleInvoiceOf } from "../../src/routes/example-documents.ts";
import { MAX_AUTOR } from "../../src/sandbox/folios.ts";
import { answerIn, errorOf, SuccessEnvelope, valueAt } from "../support/answers.ts";
import { cafOf, GENERAR, generarBody, juanaCert, LARGEST, OVER, READERS, readingBody } from "../support/large-inputs.ts";
import { startTwoTenants, type TwoTenants } from "../support/two-tenants.ts";
import { schemaErrors } from "../support/xsd.ts";

let base = "";
let started: TwoTenants["started"];
let secretA = "";
let secretB = "";

beforeAll(async () => {
  ({ base, started, secretA, secretB } = await startTwoTenants("sii-gw-big-"));
});
afterAll(() => started.server.close());

interface Answer {
  status: number;
  units: string | null;
  type: string;
  text: string;
  /** How many of account B's calls were answered before A's answer was read to its end. */
  answeredWhileRunning: number;
}

/**
 * Sends `body` from account A and, every 25 ms until A's answer is read to its end (and once
 * after), a cheap call from account B, each answered 200.
 */
async function whileOthersCall(path: string, body: string | Uint8Array<ArrayBuffer>, accept = "application/json"): Promise<Answer> {
  let done = false;
  const big = fetch(`${base}${path}`, {
    method: "POST",
    headers: { "x-api-token": secretA, "content-type": "application/json", accept },
    body,
  }).then(async (res) => {
    // As bytes: a PDF is not text.
    const bytes = await res.arrayBuffer();
    done = true;
    const type = res.headers.get("content-type") ?? "";
    return {
      status: res.status,
      units: res.headers.get("x-quota-units"),
      type,
      text: /json/.test(type) ? new TextDecoder().decode(bytes) : "",
    };
  });
  let answeredWhileRunning = 0;
  for (let finished = false; !finished; ) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    finished = done;
    const res = await fetch(`${base}/api/v1/usage`, { headers: { "x-api-token": secretB } });
    await res.arrayBuffer();
    expect(res.status, "account B's call").toBe(200);
    if (!done) answeredWhileRunning++;
  }
  return { ...(await big), answeredWhileRunning };
}

/** The envelope's bytes are valid for the SII's schema, and its signature and each document's verify. */
async function checkEnvelope(envio: string, schema: string, count: number): Promise<void> {
  const bytes = base64ToBytes(envio);
  expect(await schemaErrors(bytes, schema)).toEqual([]);
  const report = await inspectEnvelope(bytes);
  expect(report.problems).toEqual([]);
  expect(report.firma?.valido).toBe(true);
  expect(report.documentos).toHaveLength(count);
  expect(report.documentos.filter((d) => !d.firma?.valido)).toEqual([]);
}

/** Each reading operation takes the envelope `generar` answered, charged its weight per started block of 50 documents. */
function readersOf(envelope: string, count: number, envio: () => string) {
  it.each(READERS)(
    `$name takes that envelope of ${envelope}, charged its weight per started block of 50 documents, while another account is answered`,
    async ({ path, accept, weight }) => {
      expect(envio()).not.toBe("");
      const answer = await whileOthersCall(path, readingBody(envio()), accept);
      expect([answer.status, answer.units, answer.type.split(";")[0]]).toEqual([200, String((weight * count) / 50), accept]);
      // Six operations alike: each one's own schema is checked in its own tests.
      if (accept === "application/json") expect(valueAt(answerIn(answer.text, SuccessEnvelope).data, "documentos")).toHaveLength(count);
    },
    60_000,
  );
}

describe(`${MAX_BATCH_DOCUMENTS} invoices in one request, the SII's maximum per EnvioDTE`, () => {
  let envio = "";
  it("through two CAF ranges: one EnvioDTE, valid and signed, charged 2 per 50, while another account is answered", async () => {
    expect(MAX_BATCH_DOCUMENTS).toBe(2 * MAX_AUTOR);
    const answer = await whileOthersCall(LARGEST.invoices.path, await LARGEST.invoices.body());
    const json = answerIn(answer.text, Generated, answer.status);
    expect([answer.status, answer.units]).toEqual([200, String((2 * MAX_BATCH_DOCUMENTS) / 50)]);
    expect(answer.answeredWhileRunning).toBeGreaterThan(0);
    expect(json.data.sobre).toBe("EnvioDTE");
    expect(json.data.documentos).toHaveLength(MAX_BATCH_DOCUMENTS);
    await checkEnvelope(json.data.envio_xml, "EnvioDTE_v10.xsd", MAX_BATCH_DOCUMENTS);
    envio = json.data.envio_xml;
  }, 120_000);

  readersOf(`${MAX_BATCH_DOCUMENTS} invoices`, MAX_BATCH_DOCUMENTS, () => envio);
});

describe(`${MAX_BATCH_BOLETAS} boletas in one request, the SII's maximum per EnvioBOLETA`, () => {
  let envio = "";
  it("one EnvioBOLETA, valid and signed, charged 2 per 50, while another account is answered", async () => {
    const answer = await whileOthersCall(LARGEST.boletas.path, await LARGEST.boletas.body());
    const json = answerIn(answer.text, Generated, answer.status);
    expect([answer.status, answer.units]).toEqual([200, String((2 * MAX_BATCH_BOLETAS) / 50)]);
    expect(answer.answeredWhileRunning).toBeGreaterThan(0);
    expect(json.data.sobre).toBe("EnvioBOLETA");
    await checkEnvelope(json.data.envio_xml, "EnvioBOLETA_v11.xsd", MAX_BATCH_BOLETAS);
    envio = json.data.envio_xml;
  }, 60_000);

  readersOf(`${MAX_BATCH_BOLETAS} boletas`, MAX_BATCH_BOLETAS, () => envio);
});

it(`${MAX_BATCH_LINES} Detalle lines in all (60 invoices of ${MAX_BATCH_LINES / 60}) in one request, while another account is answered`, async () => {
  const answer = await whileOthersCall(LARGEST.lines.path, await LARGEST.lines.body());
  const json = answerIn(answer.text, Generated, answer.status);
  expect([answer.status, json.data.documentos.length]).toEqual([200, 60]);
  expect(answer.answeredWhileRunning).toBeGreaterThan(0);
}, 60_000);

describe("one over the maximum, refused before any work", () => {
  const post = async (body: string) => {
    const res = await fetch(`${base}${GENERAR}`, {
      method: "POST",
      headers: { "x-api-token": secretA, "content-type": "application/json" },
      body,
    });
    return { status: res.status, units: res.headers.get("x-quota-units"), json: await errorOf(res) };
  };

  it(`an EnvioDTE's ${MAX_BATCH_DOCUMENTS + 1}: 400 naming the limit and the count, nothing charged`, async () => {
    const { status, units, json } = await post(await OVER.documents.body());
    expect([status, json.error_code, json.errors?.[0]?.path, units]).toEqual([400, "VALIDATION_ERROR", "dte", "0"]);
    expect(json.message).toContain(`${MAX_BATCH_DOCUMENTS + 1} documents; at most ${MAX_BATCH_DOCUMENTS}`);
  });

  it(`an EnvioBOLETA's ${MAX_BATCH_BOLETAS + 1}: 400 naming the limit and the count, nothing charged`, async () => {
    const { status, units, json } = await post(await OVER.boletas.body());
    expect([status, json.error_code, units]).toEqual([400, "VALIDATION_ERROR", "0"]);
    expect(JSON.stringify(json.errors)).toContain(
      `has ${MAX_BATCH_BOLETAS + 1} documents; an EnvioBOLETA carries at most ${MAX_BATCH_BOLETAS}`,
    );
  });

  it(`${MAX_BATCH_LINES + MAX_DOCUMENT_LINES} Detalle lines in all: 400 on dte`, async () => {
    const { status, json } = await post(await OVER.lines.body());
    expect([status, json.errors?.[0]?.path]).toEqual([400, "dte"]);
  });
});

describe("several CAFs of one type", () => {
  const post = async (dte: unknown[], cafs: string[]) => {
    const res = await fetch(`${base}${GENERAR}`, {
      method: "POST",
      headers: { "x-api-token": secretA, "content-type": "application/json" },
      body: generarBody(juanaCert, dte, cafs),
    });
    return errorOf(res);
  };

  it("overlapping ranges are refused, naming both", async () => {
    const json = await post([exampleInvoiceOf(5, 1)], [await cafOf(33, 1, 10), await cafOf(33, 10, 20)]);
    expect(json.errors).toContainEqual({
      path: "caf[1]",
      location: "body",
      message: "covers folios 10–20 of type 33, overlapping caf[0] (1–10): give each range once",
    });
  });

  it("a folio in no range is refused, naming the nearest range", async () => {
    const json = await post([exampleInvoiceOf(15, 1)], [await cafOf(33, 1, 10), await cafOf(33, 21, 30)]);
    expect(json.errors).toContainEqual({
      path: "dte.Encabezado.IdDoc.Folio",
      location: "body",
      message: "15 is outside the CAF's range 21–30",
    });
  });
});
