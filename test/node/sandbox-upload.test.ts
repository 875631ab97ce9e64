// The sandbox's DTEUpload judges what it receives itself: envelopes sent past the gateway's checks
// are refused the way the SII refuses them (a broken envelope signature ends RFR, a carátula that
// does not match its documents RCT, a document changed after its signature is rejected alone).
import { describe, expect, it } from "vitest";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { ENVIO_STEP_MS } from "../../src/sandbox/envios.ts";
import { queryUploadStatus } from "../../src/sii/envios.ts";
import { uploadEnvelope } from "../../src/sii/envios-upload.ts";
import { requestToken } from "../../src/sii/token.ts";
import { signedEnvelope } from "../support/envelope.ts";
import { sandboxSetup } from "../support/sii.ts";

const COMPANY = "76192083-9";
const invoice = (folio: number) => ({ tipo: 33, folio, receptor: "22222222-2", total: 11_900 });

async function sendRaw(mutate: (xml: string) => string, options: Parameters<typeof signedEnvelope>[3] = {}) {
  let clock = Date.now();
  const { ctx } = sandboxSetup({ now: () => clock });
  const juana = await parseCertificateCredential(
    { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem },
    new Date(),
  );
  const token = await requestToken(ctx, juana, "0");
  const file = await signedEnvelope(juana, COMPANY, [invoice(40), invoice(41)], { ...options, tamper: mutate });
  const { track_id } = await uploadEnvelope(ctx, "0", token, { sender: "11111111-1", company: COMPANY, fileName: "e.xml", file });
  clock += 5 * ENVIO_STEP_MS;
  return queryUploadStatus(ctx, "0", token, COMPANY, track_id);
}

describe("the sandbox's own checks of uploaded envelopes", () => {
  it("accepts an intact envelope", async () => {
    expect(await sendRaw((x) => x)).toMatchObject({ estado: "EPR", resultado: "aceptado" });
  });

  it("ends RFR when the envelope changed after its signature", async () => {
    const status = await sendRaw((x) => x.replace("<NroResol>80</NroResol>", "<NroResol>81</NroResol>"));
    expect(status).toMatchObject({ estado: "RFR", resultado: "rechazado" });
  });

  it("ends RCT when the carátula does not count the documents it carries", async () => {
    const status = await sendRaw((x) => x, { subtotales: [{ tipo: 33, cantidad: 3 }] });
    expect(status).toMatchObject({ estado: "RCT", resultado: "rechazado" });
  });

  it("rejects only the document changed after its own signature, inside a validly signed envelope", async () => {
    const status = await sendRaw((x) => x, {
      tamperDocument: (dte, i) => (i === 1 ? dte.replace("<MntTotal>11900<", "<MntTotal>1190<") : dte),
    });
    expect(status).toMatchObject({
      estado: "EPR",
      resultado: "rechazado",
      documentos: [{ tipo: 33, informados: 2, aceptados: 1, rechazados: 1 }],
    });
  });
});
