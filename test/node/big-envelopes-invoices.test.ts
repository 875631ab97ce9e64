// The largest EnvioDTE allowed (the boletas, lines and refusals: big-envelopes.test.ts), each built once and read back by every reading operation, on the
// live Node server with two accounts (test/support/big-envelopes.ts): account A sends them, account
// B's cheap calls show it is answered while they run. How long they hold the event loop and how long
// B waits is measured and gated by the bench (bench/stall.ts, `npm run bench -- --stall`), not here:
// wall-clock budgets fail on a busy machine.
import { describe, expect, it } from "vitest";
import { MAX_BATCH_DOCUMENTS } from "../../src/platform/batch-limits.ts";
import { Generated } from "../../src/routes/documentos/generar.ts";
import { MAX_AUTOR } from "../../src/sandbox/folios.ts";
import { answerIn } from "../support/answers.ts";
import { bigEnvelopeServer, checkEnvelope, readersOf } from "../support/big-envelopes.ts";
import { LARGEST } from "../support/large-inputs.ts";

const { whileOthersCall } = bigEnvelopeServer("sii-gw-big-invoices-");

describe(`${MAX_BATCH_DOCUMENTS} invoices in one request, the SII's maximum per EnvioDTE`, () => {
  let envio = "";
  it("through two CAF ranges: one EnvioDTE, valid and signed, charged 2 per 25, while another account is answered", async () => {
    expect(MAX_BATCH_DOCUMENTS).toBe(2 * MAX_AUTOR);
    const answer = await whileOthersCall(LARGEST.invoices.path, await LARGEST.invoices.body());
    const json = answerIn(answer.text, Generated, answer.status);
    expect([answer.status, answer.units]).toEqual([200, String((2 * MAX_BATCH_DOCUMENTS) / 25)]);
    expect(answer.answeredWhileRunning).toBeGreaterThan(0);
    expect(json.data.sobre).toBe("EnvioDTE");
    expect(json.data.documentos).toHaveLength(MAX_BATCH_DOCUMENTS);
    await checkEnvelope(json.data.envio_xml, "EnvioDTE_v10.xsd", MAX_BATCH_DOCUMENTS);
    envio = json.data.envio_xml;
  }, 120_000);

  readersOf(whileOthersCall, `${MAX_BATCH_DOCUMENTS} invoices`, MAX_BATCH_DOCUMENTS, () => envio);
});
