// A JSON body over 1 MiB is read and parsed in slices (src/platform/json-body.ts) on every runtime:
// the operation sees the same value, and a malformed body gets the same answer, as a small body read
// in one step.
import { describe, expect, it } from "vitest";
import { SLICED_JSON_BODY } from "../../src/platform/json-body.ts";
import { Normalized } from "../../src/routes/documentos/formatos-json.ts";
import { EXAMPLE_ENVELOPE } from "../../src/routes/example-documents.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { probeApp, tokenFor } from "../support/app.ts";

const FORMATOS = "/api/v1/platform/dte/formatos/json";

async function setup() {
  const { app, deps } = probeApp(undefined, { maxBodyBytes: 8 * 1024 * 1024 });
  const { secret } = await tokenFor(deps);
  const post = async (body: string): Promise<Response> => {
    const bytes = new TextEncoder().encode(body);
    return app.request(FORMATOS, {
      method: "POST",
      headers: { "x-api-token": secret, "content-type": "application/json", "content-length": String(bytes.length) },
      body: bytes,
    });
  };
  return { post };
}

/** The example envelope's base64 wrapped at every character with escaped line breaks and spaces: over 1 MiB of JSON. */
const wrapped = (base64: string) => JSON.stringify({ xml: base64.replace(/./g, `$&${"\n ".repeat(40)}`) });

describe("a JSON body larger than 1 MiB", () => {
  it("is read as the same value: the same documents as from the compact body", async () => {
    const { post } = await setup();
    const large = wrapped(EXAMPLE_ENVELOPE);
    expect(new TextEncoder().encode(large).length).toBeGreaterThan(SLICED_JSON_BODY);
    const [compact, sliced] = [await post(JSON.stringify({ xml: EXAMPLE_ENVELOPE })), await post(large)];
    expect([compact.status, sliced.status]).toEqual([200, 200]);
    expect((await answerOf(sliced, Normalized)).data).toEqual((await answerOf(compact, Normalized)).data);
  });

  it("that is malformed gets the answer a small malformed body gets", async () => {
    const { post } = await setup();
    const large = wrapped(EXAMPLE_ENVELOPE);
    const [small, big] = [await post('{"xml": "QUJD'), await post(large.slice(0, -2))];
    expect(big.status).toBe(small.status);
    const [smallError, bigError] = [await errorOf(small), await errorOf(big)];
    expect(bigError.error_code).toBe(smallError.error_code);
    expect(bigError.message).toBe(smallError.message);
  });
});
