// Just enough ZIP for XLSX workbooks: list the entries from the central directory, inflate one
// entry as a stream (node:zlib), and write an archive (deflate through CompressionStream, CRC-32 by table).
// The central directory is read rather than the local headers in order, because writers may
// leave sizes out of the local headers (bit 3) and Excel stores the shared strings after the sheet.

import { concatBytes } from "./encoding.ts";

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflate. */
  method: number;
  compressedSize: number;
  size: number;
  crc32: number;
  localHeaderOffset: number;
}

/** An unpacked entry larger than this is refused (a zip bomb, or no workbook of the SII). */
export const MAX_ENTRY_BYTES = 512 * 1024 * 1024;

export class ZipError extends Error {}

const u16 = (b: Uint8Array, at: number) => (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
const u32 = (b: Uint8Array, at: number) => (u16(b, at) | (u16(b, at + 2) << 16)) >>> 0;

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;

/** Whether these bytes start like a ZIP archive (`PK\3\4`). */
export function looksLikeZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && u32(bytes, 0) === LOCAL_HEADER;
}

/** The archive's entries by name, from its central directory. */
export function zipEntries(zip: Uint8Array): Map<string, ZipEntry> {
  // The end record is the last 22 bytes, unless a comment (up to 64 KiB) follows it.
  let end = -1;
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at--) {
    if (u32(zip, at) === END_OF_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end < 0) throw new ZipError("not a ZIP archive, or cut short (no end of central directory)");
  const count = u16(zip, end + 10);
  let at = u32(zip, end + 16);
  const entries = new Map<string, ZipEntry>();
  const names = new TextDecoder();
  for (let i = 0; i < count; i++) {
    if (u32(zip, at) !== DIRECTORY_ENTRY) throw new ZipError("broken central directory");
    const nameLength = u16(zip, at + 28);
    const entry: ZipEntry = {
      name: names.decode(zip.subarray(at + 46, at + 46 + nameLength)),
      method: u16(zip, at + 10),
      crc32: u32(zip, at + 16),
      compressedSize: u32(zip, at + 20),
      size: u32(zip, at + 24),
      localHeaderOffset: u32(zip, at + 42),
    };
    if ([entry.compressedSize, entry.size, entry.localHeaderOffset].includes(0xffffffff))
      throw new ZipError("ZIP64 archives are not supported");
    entries.set(entry.name, entry);
    at += 46 + nameLength + u16(zip, at + 30) + u16(zip, at + 32);
  }
  return entries;
}

/** Bytes an entry is unpacked in at a time. */
const PIECE_BYTES = 256 * 1024;

/**
 * node:zlib, imported on first use (Workers has it with nodejs_compat, as src/dte/render/pdf.ts
 * uses it): its inflater hands over pieces of the size asked for, where DecompressionStream hands
 * over 16 KiB ones, each through a stream's machinery. A vehicle workbook's 11 MB sheet took
 * 60–200 ms of CPU that way in Node, 15–25 ms in 256 KiB pieces.
 */
let zlib: Promise<typeof import("node:zlib")> | undefined;

/** The pieces of an entry's data, unpacked as they are asked for. */
async function unpacked(method: number, packed: Uint8Array): Promise<AsyncIterator<Uint8Array>> {
  if (method === 0)
    return (async function* () {
      for (let at = 0; at < packed.length; at += PIECE_BYTES) yield packed.subarray(at, at + PIECE_BYTES);
    })();
  zlib ??= import("node:zlib");
  const inflater = (await zlib).createInflateRaw({ chunkSize: PIECE_BYTES });
  inflater.end(packed);
  return inflater[Symbol.asyncIterator]();
}

/** An entry's unpacked bytes as a stream: nothing but the compressed entry is held whole. */
export function entryStream(zip: Uint8Array, entry: ZipEntry): ReadableStream<Uint8Array> {
  const local = entry.localHeaderOffset;
  if (u32(zip, local) !== LOCAL_HEADER) throw new ZipError(`no local header for ${entry.name}`);
  const start = local + 30 + u16(zip, local + 26) + u16(zip, local + 28);
  const end = start + entry.compressedSize;
  if (end > zip.length) throw new ZipError(`${entry.name} is cut short`);
  if (entry.size > MAX_ENTRY_BYTES) throw new ZipError(`${entry.name} unpacks to more than ${MAX_ENTRY_BYTES} bytes`);
  if (entry.method !== 0 && entry.method !== 8) throw new ZipError(`${entry.name} uses compression method ${entry.method}`);
  let pieces: Promise<AsyncIterator<Uint8Array>> | undefined;
  // The declared size bounds what is let through, and must be what arrives.
  let total = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      pieces ??= unpacked(entry.method, zip.subarray(start, end));
      const next = await (await pieces).next();
      if (next.done) {
        if (total !== entry.size) throw new ZipError(`${entry.name} unpacked to ${total} bytes, not ${entry.size}`);
        return controller.close();
      }
      total += next.value.length;
      if (total > entry.size) throw new ZipError(`${entry.name} unpacks to more than its declared ${entry.size} bytes`);
      controller.enqueue(next.value);
    },
    async cancel() {
      await (await pieces)?.return?.();
    },
  });
}

/** An entry's whole text (small parts only: workbook, relationships). */
export async function entryText(zip: Uint8Array, entry: ZipEntry): Promise<string> {
  return new Response(entryStream(zip, entry)).text();
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 of `bytes`, continuing from `crc` (0 to start). */
export function crc32(bytes: Uint8Array, crc = 0): number {
  let c = ~crc >>> 0;
  for (let i = 0; i < bytes.length; i++) c = (CRC_TABLE[(c ^ (bytes[i] ?? 0)) & 0xff] ?? 0) ^ (c >>> 8);
  return ~c >>> 0;
}

export interface ZipSource {
  name: string;
  /** The entry's text, produced piece by piece (called once, in archive order). */
  text: () => Iterable<string>;
}

interface Packed {
  name: Uint8Array;
  data: Uint8Array;
  crc: number;
  size: number;
  method: number;
}

/** Packs text entries, deflated (or stored when `deflate` is false). */
export async function zipArchive(sources: readonly ZipSource[], options: { deflate?: boolean } = {}): Promise<Uint8Array<ArrayBuffer>> {
  const encoder = new TextEncoder();
  const packed: Packed[] = [];
  for (const source of sources) packed.push(await packEntry(encoder, source, options.deflate ?? true));
  const parts: Uint8Array[] = [];
  const directory: Uint8Array[] = [];
  let offset = 0;
  for (const entry of packed) {
    const local = header(30, entry, LOCAL_HEADER);
    parts.push(local, entry.name, entry.data);
    const central = header(46, entry, DIRECTORY_ENTRY, offset);
    directory.push(central, entry.name);
    offset += local.length + entry.name.length + entry.data.length;
  }
  const directorySize = directory.reduce((sum, part) => sum + part.length, 0);
  const end = new Uint8Array(22);
  const view = new DataView(end.buffer);
  view.setUint32(0, END_OF_DIRECTORY, true);
  view.setUint16(8, packed.length, true);
  view.setUint16(10, packed.length, true);
  view.setUint32(12, directorySize, true);
  view.setUint32(16, offset, true);
  return concatBytes([...parts, ...directory, end]);
}

/** A local header (30 bytes) or a central-directory entry (46 bytes) for `entry`. */
function header(length: 30 | 46, entry: Packed, signature: number, localOffset = 0): Uint8Array {
  const bytes = new Uint8Array(length);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, signature, true);
  const shift = length === 46 ? 2 : 0; // the directory entry has "version made by" first
  view.setUint16(4 + shift, 20, true); // version needed: 2.0
  view.setUint16(6 + shift, 0x0800, true); // names are UTF-8
  view.setUint16(8 + shift, entry.method, true);
  view.setUint32(14 + shift, entry.crc, true);
  view.setUint32(18 + shift, entry.data.length, true);
  view.setUint32(22 + shift, entry.size, true);
  view.setUint16(26 + shift, entry.name.length, true);
  if (length === 46) view.setUint32(42, localOffset, true);
  return bytes;
}

async function packEntry(encoder: TextEncoder, source: ZipSource, deflate: boolean): Promise<Packed> {
  let crc = 0;
  let size = 0;
  const compressor = deflate ? new CompressionStream("deflate-raw") : null;
  const writer = compressor?.writable.getWriter();
  const compressed = compressor ? new Response(compressor.readable).arrayBuffer() : null;
  const stored: Uint8Array[] = [];
  let pending = "";
  const flush = async () => {
    const bytes = encoder.encode(pending);
    pending = "";
    crc = crc32(bytes, crc);
    size += bytes.length;
    if (writer) await writer.write(bytes);
    else stored.push(bytes);
  };
  // Pieces are gathered into larger blocks: one write per small piece would be slow.
  for (const piece of source.text()) {
    pending += piece;
    if (pending.length >= 256 * 1024) await flush();
  }
  await flush();
  await writer?.close();
  const data = compressed ? new Uint8Array(await compressed) : concatBytes(stored);
  return { name: encoder.encode(source.name), data, crc, size, method: deflate ? 8 : 0 };
}
