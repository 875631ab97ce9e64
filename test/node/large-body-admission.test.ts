// Large JSON bodies are held, parsed, until their answer is made, whatever the account's quota:
// so an account may have at most LARGE_BODIES_PER_ACCOUNT of them in progress, and the
// process at most LARGE_BODIES_IN_PROCESS × MAX_BODY_BYTES (declared lengths), refused with 429
// before any byte is read. Bodies are held open here by streams the test ends itself.
import { describe, expect, it } from "vitest";
import { LARGE_BODIES_IN_PROCESS, LARGE_BODIES_PER_ACCOUNT, SLICED_JSON_BODY } from "../../src/platform/json-body.ts";
import { Normalized } from "../../src/routes/documentos/formatos-json.ts";
import { EXAMPLE_ENVELOPE } from "../../src/routes/example-documents.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { probeApp, tokenFor } from "../support/app.ts";

const FORMATOS = "/api/v1/platform/dte/formatos/json";
const MAX_BODY = 4 * SLICED_JSON_BODY;

/** The example envelope with escaped line breaks after every character: a valid body over `size` bytes. */
function largeBody(size: number): Uint8Array {
  const pad = "\n".repeat(Math.ceil(size / EXAMPLE_ENVELOPE.length));
  return new TextEncoder().encode(JSON.stringify({ xml: EXAMPLE_ENVELOPE.replace(/./g, `$&${pad}`) }));
}

async function setup() {
  const { app, deps } = probeApp(undefined, { maxBodyBytes: MAX_BODY });
  const body = largeBody(SLICED_JSON_BODY + 1);
  expect(body.length).toBeLessThanOrEqual(MAX_BODY);
  /** Starts a request whose body stops after its first byte until `finish` sends the rest. */
  const held = (secret: string) => {
    let rest = () => {};
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(body.subarray(0, 1));
        rest = () => {
          controller.enqueue(body.subarray(1));
          controller.close();
        };
      },
    });
    const answer = post(secret, stream);
    return { answer, finish: () => rest() };
  };
  const post = async (secret: string, stream: ReadableStream<Uint8Array> | Uint8Array) =>
    app.request(FORMATOS, {
      method: "POST",
      headers: { "x-api-token": secret, "content-type": "application/json", "content-length": String(body.length) },
      body: stream,
      duplex: "half",
    } as RequestInit);
  const account = async (name: string) => (await tokenFor(deps, { account: name })).secret;
  return { held, post, account, body };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("large bodies in progress at once", () => {
  it("an account gets 429 past its own bound, before the body is read; another account does not", async () => {
    const { held, post, account, body } = await setup();
    const [a, b] = [await account("acme"), await account("other")];
    const open = Array.from({ length: LARGE_BODIES_PER_ACCOUNT }, () => held(a));
    await tick();
    const refused = await post(a, body);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    const error = await errorOf(refused);
    expect([error.error_code, error.details]).toEqual(["SII_RATE_LIMIT", { reason: "account_uploads" }]);
    const other = await post(b, body);
    expect(other.status).toBe(200);
    for (const request of open) request.finish();
    for (const request of open) expect((await request.answer).status).toBe(200);
    // Released: the account is served again, with the same documents as any reader gets.
    expect((await answerOf(await post(a, body), Normalized)).data).toEqual((await answerOf(other, Normalized)).data);
  });

  it("the process refuses a large body past its own bound, whichever account sends it", async () => {
    const { held, post, account, body } = await setup();
    const fit = Math.floor((LARGE_BODIES_IN_PROCESS * MAX_BODY) / body.length);
    const open = [];
    for (let i = 0; i < fit; i++) open.push(held(await account(`tenant-${i}`)));
    await tick();
    const refused = await post(await account("late"), body);
    expect(refused.status).toBe(429);
    expect((await errorOf(refused)).details).toEqual({ reason: "gateway_uploads" });
    for (const request of open) request.finish();
    for (const request of open) expect((await request.answer).status).toBe(200);
    expect((await post(await account("late"), body)).status).toBe(200);
  });
});
