// Files the SII hands over gzipped are unpacked as they stream; a gzip bomb or a file that is not
// line-shaped is cut at documented limits instead of filling memory. The same for the ZIP
// workbooks (vehicle appraisals): an entry is bounded by its declared size, itself bounded.
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { entryStream, MAX_ENTRY_BYTES, zipArchive, zipEntries } from "../../src/lib/zip.ts";
import type { SiiTransport } from "../../src/ports/transport.ts";
import { CookieJar } from "../../src/sii/cookies.ts";
import type { SiiContext } from "../../src/sii/http.ts";
import { asyncFileLines, MAX_CSV_LINE } from "../../src/sii/rcv.ts";

function answering(body: Uint8Array): SiiContext {
  const transport = { mode: "sandbox", fetch: async () => new Response(body) } as unknown as SiiTransport;
  return { transport, timeoutMs: 5_000 };
}

const query = { rut: "76192083-9", periodo: "202401", tipo: 33, operacion: "COMPRA" as const, estado: "REGISTRO" };
const job = {
  solicitud_id: 1,
  estado: "TERMINADO",
  tipo_documento: 33,
  registros: 1,
  creado: null,
  terminado: null,
  error: null,
  blob: "b",
};

async function drain(stream: ReadableStream<string>): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of stream as unknown as AsyncIterable<string>) lines.push(line);
  return lines;
}

describe("gzipped downloads", () => {
  it("reads an ordinary file line by line", async () => {
    const file = gzipSync(Buffer.from("Nro;Tipo Doc\n1;33\n2;33\n", "latin1"));
    expect(await drain(await asyncFileLines(answering(file), new CookieJar(), query, job))).toEqual(["Nro;Tipo Doc", "1;33", "2;33"]);
  });

  it("cuts a file whose unpacked line has no end (a bomb of one endless line)", async () => {
    const bomb = gzipSync(Buffer.alloc(MAX_CSV_LINE * 4, 0x41));
    expect(bomb.length).toBeLessThan(2_000);
    const cut = drain(await asyncFileLines(answering(bomb), new CookieJar(), query, job));
    // The SII's failure, not the gateway's: a 502 envelope with the limit in `details`.
    await expect(cut).rejects.toMatchObject({
      status: 502,
      code: "SII_GATEWAY_ERROR",
      init: { details: { reason: expect.stringMatching(/line longer than 65536/) } },
    });
  });

  it("refuses a file that starts like gzip and is not (a 502, not a 200 that breaks off)", async () => {
    const fake = new Uint8Array([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff]);
    await expect(drain(await asyncFileLines(answering(fake), new CookieJar(), query, job))).rejects.toMatchObject({
      status: 502,
      code: "SII_GATEWAY_ERROR",
      init: { details: { service: "rcv_blob", reason: expect.any(String) } },
    });
  });

  it("cuts a file cut short in the middle", async () => {
    const file = gzipSync(Buffer.from("Nro;Tipo Doc\n1;33\n".repeat(2_000), "latin1"));
    const half = file.subarray(0, file.length >> 1);
    await expect(drain(await asyncFileLines(answering(half), new CookieJar(), query, job))).rejects.toMatchObject({ status: 502 });
  });
});

describe("ZIP bombs (the SII's workbooks)", () => {
  /** A 4 MiB entry packed to a few KiB, its central directory then claiming `declared` bytes. */
  async function lyingZip(declared: number): Promise<Uint8Array> {
    const zip = await zipArchive([{ name: "xl/sheet1.xml", text: () => Array.from({ length: 64 }, () => "A".repeat(64 * 1024)) }]);
    const view = new DataView(zip.buffer);
    const directory = view.getUint32(zip.length - 22 + 16, true);
    view.setUint32(directory + 24, declared, true);
    return zip;
  }
  const unpack = async (zip: Uint8Array) => new Response(entryStream(zip, zipEntries(zip).get("xl/sheet1.xml")!)).arrayBuffer();

  it("cuts an entry that unpacks to more than it declared", async () => {
    const zip = await lyingZip(1024);
    expect(zip.length).toBeLessThan(64 * 1024);
    await expect(unpack(zip)).rejects.toThrow(/unpacks to more than its declared 1024 bytes/);
  });

  it("refuses, before unpacking, an entry that declares more than the limit", async () => {
    await expect(unpack(await lyingZip(MAX_ENTRY_BYTES + 1))).rejects.toThrow(/unpacks to more than 536870912 bytes/);
  });
});
