// The largest envelopes allowed, each built once and read back by every reading operation, on the
// live Node server with two accounts (test/support/big-envelopes.ts): account A sends them, account
// B's cheap calls show it is answered while they run. How long they hold the event loop and how long
// B waits is measured and gated by the bench (bench/stall.ts, `npm run bench -- --stall`), not here:
// wall-clock budgets fail on a busy machine.
import { describe, expect, it } from "vitest";
import { MAX_BATCH_BOLETAS, MAX_BATCH_DOCUMENTS, MAX_BATCH_LINES, MAX_DOCUMENT_LINES } from "../../src/platform/batch-limits.ts";
import { Generated } from "../../src/routes/documentos/generar.ts";
import { exampleInvoiceOf } from "../../src/routes/example-documents.ts";
import { answerIn, errorOf } from "../support/answers.ts";
import { bigEnvelopeServer, checkEnvelope, readersOf } from "../support/big-envelopes.ts";
import { cafOf, GENERAR, generarBody, juanaCert, LARGEST, OVER } from "../support/large-inputs.ts";

const { whileOthersCall, post: send } = bigEnvelopeServer("sii-gw-big-");

describe(`${MAX_BATCH_BOLETAS} boletas in one request, the SII's maximum per EnvioBOLETA`, () => {
  let envio = "";
  it("one EnvioBOLETA, valid and signed, charged 2 per 25, while another account is answered", async () => {
    const answer = await whileOthersCall(LARGEST.boletas.path, await LARGEST.boletas.body());
    const json = answerIn(answer.text, Generated, answer.status);
    expect([answer.status, answer.units]).toEqual([200, String((2 * MAX_BATCH_BOLETAS) / 25)]);
    expect(answer.answeredWhileRunning).toBeGreaterThan(0);
    expect(json.data.sobre).toBe("EnvioBOLETA");
    await checkEnvelope(json.data.envio_xml, "EnvioBOLETA_v11.xsd", MAX_BATCH_BOLETAS);
    envio = json.data.envio_xml;
  });

  readersOf(whileOthersCall, `${MAX_BATCH_BOLETAS} boletas`, MAX_BATCH_BOLETAS, () => envio);
});

it(`${MAX_BATCH_LINES} Detalle lines in all (60 invoices of ${MAX_BATCH_LINES / 60}) in one request, while another account is answered`, async () => {
  const answer = await whileOthersCall(LARGEST.lines.path, await LARGEST.lines.body());
  const json = answerIn(answer.text, Generated, answer.status);
  expect([answer.status, json.data.documentos.length]).toEqual([200, 60]);
  expect(answer.answeredWhileRunning).toBeGreaterThan(0);
});

describe("one over the maximum, refused before any work", () => {
  const post = async (body: string) => {
    const { status, units, res } = await send(GENERAR, body);
    return { status, units, json: await errorOf(res) };
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
  const post = async (dte: unknown[], cafs: string[]) => errorOf((await send(GENERAR, generarBody(juanaCert, dte, cafs))).res);

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
