import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateSync, inflateSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import { base64ToBytes, bytesToBase64 } from "../../src/lib/encoding.ts";
import { unitsFor } from "../../src/platform/batch-limits.ts";
import { Rendered } from "../../src/routes/documentos/pdf.ts";
import { EXAMPLE_ENVELOPE } from "../../src/routes/example-documents.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { buildCaf } from "../../src/sandbox/folios-caf.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";
import { prepareBarcodeReader, readBarcodes } from "../support/barcode.ts";
import { signedEnvelope, type TestDocument } from "../support/envelope.ts";

const PDF = "/api/v1/platform/dte/documentos/pdf";
const COMPANY = "76192083-9";
const juanaCert = { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem };

beforeAll(prepareBarcodeReader);

async function setup(docs: Omit<TestDocument, "caf">[] = [{ tipo: 33, folio: 42, receptor: "22222222-2", total: 11_900 }]) {
  const t = probeApp();
  const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
  const juana = await parseCertificateCredential(juanaCert, new Date());
  const caf = await buildCaf({ rut: COMPANY, razonSocial: "COMERCIAL SANDBOX SPA", tipo: 33, desde: 1, hasta: 100, fecha: "2026-11-01" });
  const xml = await signedEnvelope(
    juana,
    COMPANY,
    docs.map((d) => ({ ...d, caf })),
  );
  const post = (body: object, headers: Record<string, string> = {}) =>
    postJson(t.app, token.secret, PDF, { xml: bytesToBase64(xml), oficina_sii: "PROVIDENCIA", ...body }, headers);
  return { ...t, post, xml };
}

/** The PDF as latin1 text with each compressed content stream inflated in place (to read what it draws). */
const pdfText = async (res: Response) => {
  const raw = Buffer.from(await res.arrayBuffer()).toString("latin1");
  return raw.replace(/\/Filter \/FlateDecode \/Length (\d+) >>\nstream\n/g, (head, length: string, offset: number) => {
    const start = offset + head.length;
    return `${head}${inflateSync(Buffer.from(raw.slice(start, start + Number(length)), "latin1")).toString("latin1")}\nendstream-inflated\n`;
  });
};
const POPPLER = spawnSync("pdftoppm", ["-v"]).status === 0;

const pageCount = (pdf: string) => Number(/\/Type \/Pages \/Kids \[[^\]]*\] \/Count (\d+)/.exec(pdf)?.[1]);

/**
 * Rasterizes the first document's stamp: its PDF417 image mask (one bit a module, a 1 is a bar,
 * each row drawn three modules tall), 4 pixels a module, with a quiet zone.
 */
function barcodeImage(pdf: string): Parameters<typeof readBarcodes>[0] {
  const mask = /\/Width (\d+) \/Height (\d+) \/ImageMask true [^>]*\/Length (\d+) >>\nstream\n/.exec(pdf);
  const [columns, rows, length] = [Number(mask?.[1]), Number(mask?.[2]), Number(mask?.[3])];
  const from = (mask?.index ?? 0) + (mask?.[0].length ?? 0);
  const bits = pdf.slice(from, from + length);
  const stride = Math.ceil(columns / 8);
  const scale = 4;
  const pad = 40;
  const width = columns * scale + 2 * pad;
  const height = rows * 3 * scale + 2 * pad;
  const data = new Uint8ClampedArray(width * height * 4).fill(255);
  for (let row = 0; row < rows; row++) {
    for (let x = 0; x < columns; x++) {
      if (!(bits.charCodeAt(row * stride + (x >> 3)) & (0x80 >> (x & 7)))) continue;
      for (let py = row * 3 * scale; py < (row + 1) * 3 * scale; py++) {
        const start = ((py + pad) * width + x * scale + pad) * 4;
        for (let px = 0; px < scale; px++) data.fill(0, start + px * 4, start + px * 4 + 3);
      }
    }
  }
  return { data, width, height, colorSpace: "srgb" } as unknown as Parameters<typeof readBarcodes>[0];
}

/** A PNG of solid color, RGB or RGBA, 8 bits. */
function png(width: number, height: number, alpha = false): Uint8Array {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const b of bytes) c = (crcTable[(c ^ b) & 0xff] as number) ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, body: Buffer) => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(body.length);
    const tail = Buffer.alloc(4);
    tail.writeUInt32BE(crc(Buffer.concat([Buffer.from(type), body])));
    return Buffer.concat([head, Buffer.from(type), body, tail]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, alpha ? 6 : 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * (alpha ? 4 : 3), 0x80)]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

describe("PDF representations (documentos/pdf)", () => {
  it("draws the document with its SII box, accents and the stamp, whose PDF417 reads back as the TED", async () => {
    const { post, xml } = await setup();
    const res = await post({ oficina_sii: "PROVIDENCIA" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.headers.get("x-quota-units")).toBe("2");
    const pdf = await pdfText(res);
    expect(pdf.startsWith("%PDF-1.4")).toBe(true);
    expect(pdf.trimEnd().endsWith("%%EOF")).toBe(true);
    expect(pageCount(pdf)).toBe(1);
    for (const text of [
      "(R.U.T.: 76192083-9) Tj",
      "(FACTURA ELECTR\u00d3NICA) Tj",
      "(N\u00b0 42) Tj",
      "(S.I.I. - PROVIDENCIA) Tj",
      "(Compa\u00f1\u00eda Receptora) Tj",
      "(Timbre Electr\u00f3nico S.I.I.) Tj",
      "(Resoluci\u00f3n N\u00b0 80 de 2014) Tj",
      "(11.900) Tj",
    ]) {
      expect(pdf, text).toContain(text);
    }
    expect(pdf).toContain("/BaseFont /Helvetica /Encoding /WinAnsiEncoding");

    const [read] = await readBarcodes(barcodeImage(pdf), { formats: ["PDF417"] });
    const ted = Buffer.from(/<TED[\s\S]*?<\/TED>/.exec(Buffer.from(xml).toString("latin1"))?.[0] ?? "", "latin1");
    expect(read?.format).toBe("PDF417");
    expect(read && Buffer.from(read.bytes).equals(ted)).toBe(true);
  });

  // A real renderer reads our file (objects, offsets, fonts, the content stream) and draws the
  // barcode's image mask itself; zxing then reads the printed page, as a scanner would.
  it.skipIf(!POPPLER)(
    "is drawn by a real PDF renderer (poppler's pdftoppm; skipped where it is not installed) with a readable stamp",
    async () => {
      const { post, xml } = await setup();
      const folder = mkdtempSync(join(tmpdir(), "pdf-"));
      writeFileSync(join(folder, "doc.pdf"), new Uint8Array(await (await post({ papel: "80mm" })).arrayBuffer()));
      const run = spawnSync("pdftoppm", ["-r", "200", "-png", "-singlefile", join(folder, "doc.pdf"), join(folder, "page")]);
      expect(run.status, run.stderr.toString()).toBe(0);
      const [read] = await readBarcodes(new Blob([readFileSync(join(folder, "page.png"))]), { formats: ["PDF417"] });
      rmSync(folder, { recursive: true });
      const ted = Buffer.from(/<TED[\s\S]*?<\/TED>/.exec(Buffer.from(xml).toString("latin1"))?.[0] ?? "", "latin1");
      expect(read && Buffer.from(read.bytes).equals(ted)).toBe(true);
    },
  );

  it("refuses to print without the SII office (400 naming oficina_sii), and prints S.I.I. - <office> under the box", async () => {
    const { post } = await setup();
    for (const oficina_sii of [undefined, "   "]) {
      const res = await post({ oficina_sii });
      const error = await errorOf(res);
      expect([res.status, error.errors?.[0]?.path]).toEqual([400, "oficina_sii"]);
      expect(error.message).toMatch(/^oficina_sii is required: the printout shows the issuer's SII office under the red box/);
    }
    const pdf = await pdfText(await post({ oficina_sii: " SANTIAGO CENTRO " }));
    expect(pdf).toContain("(S.I.I. - SANTIAGO CENTRO) Tj");
    expect(pdf).not.toContain("(S.I.I.) Tj");
  });

  it.skipIf(!POPPLER)("shows the office under the box as pdftotext reads the page", async () => {
    const { post } = await setup();
    const folder = mkdtempSync(join(tmpdir(), "pdf-"));
    writeFileSync(join(folder, "doc.pdf"), new Uint8Array(await (await post({ oficina_sii: "ÑUÑOA" })).arrayBuffer()));
    const run = spawnSync("pdftotext", ["-layout", join(folder, "doc.pdf"), "-"]);
    rmSync(folder, { recursive: true });
    expect(run.status, run.stderr.toString()).toBe(0);
    expect(run.stdout.toString()).toContain("S.I.I. - ÑUÑOA");
  });

  it("adds copies and the cedible copy (with the Ley 19.983 receipt box), never for a credit note", async () => {
    const invoice = await setup();
    const pdf = await pdfText(await invoice.post({ copias: 2, cedible: true }));
    expect(pageCount(pdf)).toBe(3);
    expect(pdf).toContain("(CEDIBLE) Tj");
    expect(pdf).toContain("(ACUSE DE RECIBO) Tj");
    const note = await setup([{ tipo: 61, folio: 5, receptor: "22222222-2", total: 1_190 }]);
    const notePdf = await pdfText(await note.post({ cedible: true }));
    expect(pageCount(notePdf)).toBe(1);
    expect(notePdf).not.toContain("(CEDIBLE) Tj");
  });

  it("prints on an 80 mm roll whose height fits the document, and answers JSON on request", async () => {
    const { post } = await setup();
    const pdf = await pdfText(await post({ papel: "80mm" }));
    const box = /\/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]/.exec(pdf);
    expect(Number(box?.[1])).toBeCloseTo(226.77, 1);
    expect(Number(box?.[2])).toBeGreaterThan(300);
    expect(Number(box?.[2])).toBeLessThan(792);
    const json = await answerOf(await post({}, { accept: "application/json" }), Rendered);
    expect(json.data.documentos).toEqual([{ tipo: 33, folio: 42 }]);
    expect(Buffer.from(json.data.pdf, "base64").toString("latin1").startsWith("%PDF-1.4")).toBe(true);
  });

  it("embeds a PNG logo as it is, and refuses one with transparency naming logo", async () => {
    const { post } = await setup();
    const pdf = await pdfText(await post({ logo: bytesToBase64(png(40, 20)) }));
    expect(pdf).toContain("/Subtype /Image /Width 40 /Height 20 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode");
    expect(pdf).toContain("/Logo Do");
    for (const logo of [bytesToBase64(png(4, 4, true)), bytesToBase64(new TextEncoder().encode("GIF89a"))]) {
      const res = await post({ logo });
      const body = await errorOf(res);
      expect([res.status, body.errors?.[0]?.path]).toEqual([400, "logo"]);
    }
  });

  it("charges each printed copy as a document: its lines count once per copy, the cedible copy too", async () => {
    const { post } = await setup();
    for (const options of [{}, { copias: 5, cedible: true }]) {
      const res = await post(options);
      expect([res.status, res.headers.get("x-quota-units")]).toEqual([200, "2"]);
    }
    // The example's document with 300 Detalle lines: 1 block printed once, 1 800 lines (2 blocks) printed 5 + 1 times.
    const genuine = String.fromCharCode(...base64ToBytes(EXAMPLE_ENVELOPE));
    const line = /<Detalle>[\s\S]*?<\/Detalle>/.exec(genuine)?.[0] ?? "";
    const xml = bytesToBase64(Uint8Array.from(genuine.replace(line, line.repeat(300)), (ch) => ch.charCodeAt(0)));
    const t = probeApp(undefined, { maxBodyBytes: 4 * 1024 * 1024 });
    const token = await tokenFor(t.deps);
    for (const [options, units] of [
      [{}, "2"],
      [{ copias: 5, cedible: true }, "4"],
    ] as const) {
      const res = await postJson(t.app, token.secret, PDF, { xml, oficina_sii: "PROVIDENCIA", ...options });
      // 300 lines take 6 letter pages a copy; each copy, the cedible one too, prints them all.
      expect([res.status, res.headers.get("x-quota-units"), pageCount(await pdfText(res))]).toEqual([200, units, options.copias ? 36 : 6]);
    }
    expect(unitsFor(2, 50 * 6, 50_000 * 6)).toBe(600);
  });

  it("charges the copies before the parse: 429 when the plan cannot pay for them, and 400 naming copias past the pages", async () => {
    const t = probeApp();
    // Not well-formed past the screen (a closing tag names another element): the parse never ran if its refusal is not the answer.
    const broken = `<EnvioDTE><SetDTE ID="S">${'<DTE version="1.0"><Documento ID="D"><Detalle/></Documento></DTE>'.repeat(9)}</SetDTE></Caratula></EnvioDTE>`;
    const xml = bytesToBase64(Uint8Array.from(broken, (ch) => ch.charCodeAt(0)));
    const token = await tokenFor(t.deps, { plan: { daily_units: 3, monthly_units: 100 } });
    // 9 documents printed 6 times are 54, three blocks: the plan pays one.
    const refused = await postJson(t.app, token.secret, PDF, { xml, copias: 5, cedible: true });
    const error = await errorOf(refused);
    expect([refused.status, error.error_code, error.details?.units_needed, refused.headers.get("x-quota-units")]).toEqual([
      429,
      "QUOTA_EXCEEDED",
      4,
      "0",
    ]);
    const once = await errorOf(await postJson(t.app, token.secret, PDF, { xml }));
    expect(once.message).toMatch(/^xml cannot be read: not well-formed XML/);
    const many = `<EnvioDTE><SetDTE ID="S">${'<DTE version="1.0"><Documento ID="D"><Detalle/></Documento></DTE>'.repeat(401)}</SetDTE></Caratula></EnvioDTE>`;
    const pages = await postJson(t.app, token.secret, PDF, {
      xml: bytesToBase64(Uint8Array.from(many, (ch) => ch.charCodeAt(0))),
      copias: 5,
    });
    const tooMany = await errorOf(pages);
    expect([pages.status, tooMany.errors?.[0]?.path, pages.headers.get("x-quota-units")]).toEqual([400, "copias", "0"]);
  });

  it("refuses unreadable XML (400 naming xml), bad options (422), and needs a token with sii:read", async () => {
    const { app, deps, post } = await setup();
    const res = await postJson(app, (await tokenFor(deps, { scopes: ["sii:read"] })).secret, PDF, { xml: "%%%" });
    expect([res.status, (await errorOf(res)).errors?.[0]?.path]).toEqual([400, "xml"]);
    const bad = await errorOf(await post({ papel: "A4", copias: 9 }));
    expect(bad.error_code).toBe("VALIDATION_ERROR");
    expect(bad.errors?.map((e) => e.path).sort()).toEqual(["copias", "papel"]);
    expect((await app.request(PDF, { method: "POST", body: "{}" })).status).toBe(401);
    const other = await tokenFor(deps, { scopes: ["settings:read"] });
    expect((await postJson(app, other.secret, PDF, { xml: "AA==" })).status).toBe(403);
  });
});
