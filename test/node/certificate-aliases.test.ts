// A PFX under the names the apigateway.cl SDKs send (`auth.cert.file-data` + `file-pass`) works as
// `pfx-data` + `passphrase` does; the same field under both names is refused, naming it.
import { describe, expect, it } from "vitest";
import { Status } from "../../src/routes/envios/estado.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

// Juana represents the sandbox company whose envelope is asked for.
const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
const estado = "/api/v1/platform/dte/envios/estado/76192083-9/0260000001";

async function setup() {
  const t = probeApp();
  const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
  return (cert: Record<string, unknown>) => postJson(t.app, token.secret, estado, { auth: { cert } });
}

describe("auth.cert.file-data + file-pass", () => {
  it("signs in with the PFX as pfx-data + passphrase do, and answers the same", async () => {
    const post = await setup();
    const aliased = await post({ "file-data": juana.legacyPfxBase64, "file-pass": juana.passphrase });
    expect(aliased.status).toBe(200);
    const plain = await post({ "pfx-data": juana.legacyPfxBase64, passphrase: juana.passphrase });
    const processed = { track_id: "0260000001", estado: "EPR", documentos: [{ tipo: 33, informados: 3, aceptados: 3 }] };
    expect((await answerOf(aliased, Status)).data).toMatchObject(processed);
    expect((await answerOf(plain, Status)).data).toMatchObject(processed);
  });

  it("refuses a field given under both names with 422 naming the alias", async () => {
    const post = await setup();
    const cases: [Record<string, unknown>, string][] = [
      [{ "pfx-data": juana.legacyPfxBase64, "file-data": juana.legacyPfxBase64, passphrase: juana.passphrase }, "auth.cert.file-data"],
      [{ "file-data": juana.legacyPfxBase64, "file-pass": juana.passphrase, passphrase: juana.passphrase }, "auth.cert.file-pass"],
    ];
    for (const [cert, path] of cases) {
      const res = await post(cert);
      const body = await errorOf(res);
      expect([res.status, body.error_code]).toEqual([422, "VALIDATION_ERROR"]);
      expect(body.errors).toContainEqual(expect.objectContaining({ path, message: expect.stringMatching(/under another name/) }));
    }
  });

  it("still wants the passphrase with file-data, and still refuses a PFX next to a PEM pair", async () => {
    const post = await setup();
    const alone = await errorOf(await post({ "file-data": juana.legacyPfxBase64 }));
    expect(alone.errors).toContainEqual(expect.objectContaining({ path: "auth.cert.file-pass" }));
    const mixed = await errorOf(
      await post({ "file-data": juana.legacyPfxBase64, "file-pass": juana.passphrase, "cert-data": juana.certPem }),
    );
    expect(mixed.errors).toContainEqual(expect.objectContaining({ path: "auth.cert.file-data" }));
    const wrong = await post({ "file-data": juana.legacyPfxBase64, "file-pass": "not-the-passphrase" });
    expect([wrong.status, (await errorOf(wrong)).error_code]).toEqual([400, "AUTH_ERROR"]);
  });
});
