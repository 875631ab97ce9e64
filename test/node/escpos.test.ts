// ESC/POS receipts of signed documents: the printer's code page, the SII's box, totals, and the
// TED as the printer's own PDF417 with the TED's exact bytes. A printer is emulated by drawing
// the stored PDF417 with the receipt's parameters and reading it back with a barcode reader.
import { readFileSync } from "node:fs";
import bwipjs from "bwip-js/node";
import { beforeAll, describe, expect, it } from "vitest";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import { bytesToBase64 } from "../../src/lib/encoding.ts";
import { Receipt } from "../../src/routes/documentos/escpos.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { buildCaf } from "../../src/sandbox/folios-caf.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";
import { prepareBarcodeReader, readBarcodes } from "../support/barcode.ts";
import { signedEnvelope } from "../support/envelope.ts";
import { fixturePath } from "../support/fixtures.ts";

const ESCPOS = "/api/v1/platform/dte/documentos/escpos";
const COMPANY = "76192083-9";
const juanaCert = { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem };

beforeAll(prepareBarcodeReader);

async function setup() {
  const t = probeApp();
  const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
  const juana = await parseCertificateCredential(juanaCert, new Date());
  const caf = await buildCaf({ rut: COMPANY, razonSocial: "COMERCIAL SANDBOX SPA", tipo: 33, desde: 1, hasta: 100, fecha: "2026-11-01" });
  const xml = await signedEnvelope(juana, COMPANY, [{ tipo: 33, folio: 42, receptor: "22222222-2", total: 11_900, caf }]);
  const post = (body: unknown, headers: Record<string, string> = {}) => postJson(t.app, token.secret, ESCPOS, body, headers);
  return { ...t, post, xml, token };
}

/** The payload of the PDF417 store command (GS ( k pL pH 0x30 0x50 0x30 data). */
function storedPdf417(bytes: Uint8Array): Uint8Array {
  for (let i = 0; i < bytes.length - 8; i++) {
    if (
      bytes[i] === 0x1d &&
      bytes[i + 1] === 0x28 &&
      bytes[i + 2] === 0x6b &&
      bytes[i + 5] === 0x30 &&
      bytes[i + 6] === 0x50 &&
      bytes[i + 7] === 0x30
    ) {
      const length = (bytes[i + 3] ?? 0) + 256 * (bytes[i + 4] ?? 0) - 3;
      return bytes.slice(i + 8, i + 8 + length);
    }
  }
  throw new Error("no PDF417 store command");
}
const contains = (bytes: Uint8Array, needle: number[]) => Buffer.from(bytes).includes(Buffer.from(needle));
const tedOf = (xml: Uint8Array) => Buffer.from(/<TED[\s\S]*?<\/TED>/.exec(Buffer.from(xml).toString("latin1"))?.[0] ?? "", "latin1");

describe("ESC/POS receipts (documentos/escpos)", () => {
  it("prints the TED's exact bytes as a level-5 PDF417 that reads back, in the WPC1252 code page", async () => {
    const { post, xml } = await setup();
    const res = await post({ xml: bytesToBase64(xml) });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    expect(res.headers.get("x-quota-units")).toBe("1");
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.slice(0, 5)]).toEqual([0x1b, 0x40, 0x1b, 0x74, 16]);
    expect([...bytes.slice(-7)]).toEqual([0x1b, 0x64, 4, 0x1d, 0x56, 0x42, 0]);
    expect(contains(bytes, [0x1d, 0x28, 0x6b, 0x04, 0x00, 0x30, 0x45, 0x30, 0x35])).toBe(true);
    expect(contains(bytes, [0x1d, 0x28, 0x6b, 0x03, 0x00, 0x30, 0x41, 12])).toBe(true);
    const ted = storedPdf417(bytes);
    expect(Buffer.from(ted).equals(tedOf(xml))).toBe(true);

    const text = Buffer.from(bytes).toString("latin1");
    expect(text).toContain("R.U.T.: 76192083-9");
    expect(text).toContain("FACTURA ELECTR\u00d3NICA");
    expect(text).toContain("N\u00b0 42");
    expect(text).toContain("Se\u00f1or(es): Compa\u00f1\u00eda Receptora");
    expect(text).toContain("Res. N\u00b0 80 de 2014");

    // The printer's part: draw the stored data with the receipt's parameters, then read it.
    const options = {
      bcid: "pdf417",
      text: Buffer.from(ted).toString("latin1"),
      binarytext: true,
      eclevel: 5,
      columns: 12,
      rowmult: 3,
      scale: 2,
      paddingwidth: 10,
      paddingheight: 10,
      backgroundcolor: "FFFFFF",
    };
    const png = (await bwipjs.toBuffer(options as Parameters<typeof bwipjs.toBuffer>[0])) as Buffer;
    const [read] = await readBarcodes(new Blob([png]), { formats: ["PDF417"] });
    expect(read && Buffer.from(read.bytes).equals(Buffer.from(ted))).toBe(true);
  });

  it("encodes text in PC850 when asked, fits 58 mm paper with 7 PDF417 columns, and answers JSON on request", async () => {
    const { post, xml } = await setup();
    const pc850 = new Uint8Array(await (await post({ xml: bytesToBase64(xml), codepage: "PC850", papel: "58mm" })).arrayBuffer());
    expect([...pc850.slice(0, 5)]).toEqual([0x1b, 0x40, 0x1b, 0x74, 2]);
    expect(contains(pc850, [...Buffer.from("Compa"), 0xa4, 0xa1, 0x61])).toBe(true);
    expect(contains(pc850, [0x1d, 0x28, 0x6b, 0x03, 0x00, 0x30, 0x41, 7])).toBe(true);
    const json = await post({ xml: bytesToBase64(xml) }, { accept: "application/json" });
    const { data } = await answerOf(json, Receipt);
    expect(data.documentos).toEqual([{ tipo: 33, folio: 42 }]);
    expect(Buffer.from(data.escpos, "base64").equals(Buffer.from(await (await post({ xml: bytesToBase64(xml) })).arrayBuffer()))).toBe(
      true,
    );
  });

  it("refuses what it cannot read (400 naming xml), bad options (422), and needs a token with sii:read", async () => {
    const { post, app, deps } = await setup();
    for (const xml of ["%%%", bytesToBase64(new TextEncoder().encode('<!DOCTYPE x [<!ENTITY a "b">]><DTE/>'))]) {
      const res = await post({ xml });
      expect([res.status, (await errorOf(res)).errors?.[0]?.path]).toEqual([400, "xml"]);
    }
    const bad = await errorOf(await post({ xml: "AA==", papel: "A4" }));
    expect([bad.error_code, bad.errors?.[0]?.path]).toEqual(["VALIDATION_ERROR", "papel"]);
    expect((await app.request(ESCPOS, { method: "POST", body: "{}" })).status).toBe(401);
    const other = await tokenFor(deps, { scopes: ["settings:read"] });
    expect((await postJson(app, other.secret, ESCPOS, { xml: "AA==" })).status).toBe(403);
  });
});

const example = fixturePath("real-documents", "sii-example", "F60T33-ejemplo-oficial-SII.xml");
describe("the SII's official example", () => {
  it("prints its TED unchanged (DD as signed, whitespace between tags and inside FRMT's base64 removed)", async () => {
    const { post } = await setup();
    const file = readFileSync(example);
    const bytes = new Uint8Array(await (await post({ xml: bytesToBase64(file) })).arrayBuffer());
    const ted = storedPdf417(bytes);
    // The file breaks FRMT's base64 over two lines; the barcode carries it whole.
    const expected = tedOf(file).toString("latin1").replace(/\r\n/g, "\n").replace(/>\s+</g, "><").replace("Jo8i\nS4HX", "Jo8iS4HX");
    expect(Buffer.from(ted).toString("latin1")).toBe(expected);
    expect(ted.length).toBe(742);
  });
});
