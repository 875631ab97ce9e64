// The live Node server with two accounts for the largest envelopes (test/node/big-envelopes*.test.ts):
// account A sends them, account B's cheap calls show it is answered while they run. Two files share
// it so that vitest runs their envelopes side by side.
import { afterAll, beforeAll, expect, it } from "vitest";
import { inspectEnvelope } from "../../src/dte/verify/envelope.ts";
import { base64ToBytes } from "../../src/lib/encoding.ts";
import { answerIn, SuccessEnvelope, valueAt } from "./answers.ts";
import { READERS, readingBody } from "./large-inputs.ts";
import { startTwoTenants, type TwoTenants } from "./two-tenants.ts";
import { schemaErrors } from "./xsd.ts";

export interface Answer {
  status: number;
  units: string | null;
  type: string;
  text: string;
  /** How many of account B's calls were answered before A's answer was read to its end. */
  answeredWhileRunning: number;
}

/** Starts the server for the file's tests (closed after them) and gives what they send with. */
export function bigEnvelopeServer(prefix: string) {
  const server = { base: "", secretA: "", secretB: "", started: null as TwoTenants["started"] | null };
  beforeAll(async () => {
    const two = await startTwoTenants(prefix);
    Object.assign(server, { base: two.base, secretA: two.secretA, secretB: two.secretB, started: two.started });
  });
  afterAll(() => server.started?.server.close());

  /**
   * Sends `body` from account A and, every 25 ms until A's answer is read to its end (and once
   * after), a cheap call from account B, each answered 200.
   */
  async function whileOthersCall(path: string, body: string | Uint8Array<ArrayBuffer>, accept = "application/json"): Promise<Answer> {
    let done = false;
    const big = fetch(`${server.base}${path}`, {
      method: "POST",
      headers: { "x-api-token": server.secretA, "content-type": "application/json", accept },
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
      const res = await fetch(`${server.base}/api/v1/usage`, { headers: { "x-api-token": server.secretB } });
      await res.arrayBuffer();
      expect(res.status, "account B's call").toBe(200);
      if (!done) answeredWhileRunning++;
    }
    return { ...(await big), answeredWhileRunning };
  }

  /** Account A's POST of `body`, its status, units and (error) JSON. */
  const post = async (path: string, body: string) => {
    const res = await fetch(`${server.base}${path}`, {
      method: "POST",
      headers: { "x-api-token": server.secretA, "content-type": "application/json" },
      body,
    });
    return { status: res.status, units: res.headers.get("x-quota-units"), res };
  };

  return { whileOthersCall, post };
}

/** The envelope's bytes are valid for the SII's schema, and its signature and each document's verify. */
export async function checkEnvelope(envio: string, schema: string, count: number): Promise<void> {
  const bytes = base64ToBytes(envio);
  expect(await schemaErrors(bytes, schema)).toEqual([]);
  const report = await inspectEnvelope(bytes);
  expect(report.problems).toEqual([]);
  expect(report.firma?.valido).toBe(true);
  expect(report.documentos).toHaveLength(count);
  expect(report.documentos.filter((d) => !d.firma?.valido)).toEqual([]);
}

/** Each reading operation takes the envelope `generar` answered, charged its weight per started block of 25 documents. */
export function readersOf(
  whileOthersCall: ReturnType<typeof bigEnvelopeServer>["whileOthersCall"],
  envelope: string,
  count: number,
  envio: () => string,
) {
  it.each(READERS)(
    `$name takes that envelope of ${envelope}, charged its weight per started block of 25 documents, while another account is answered`,
    async ({ path, accept, weight }) => {
      expect(envio()).not.toBe("");
      const answer = await whileOthersCall(path, readingBody(envio(), path), accept);
      expect([answer.status, answer.units, answer.type.split(";")[0]]).toEqual([200, String((weight * count) / 25), accept]);
      // Six operations alike: each one's own schema is checked in its own tests.
      if (accept === "application/json") expect(valueAt(answerIn(answer.text, SuccessEnvelope).data, "documentos")).toHaveLength(count);
    },
  );
}
