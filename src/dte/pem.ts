// PEM as people paste it into JSON: with or without line breaks, CRLF, a JSON-escaped "\n" left
// in, several blocks, or a bare base64 DER body without the armor.
import { base64ToBytes, bytesToBase64 } from "../lib/encoding.ts";

export interface DerBlock {
  /** `CERTIFICATE`, `PRIVATE KEY`…; null for bare base64. */
  label: string | null;
  der: Uint8Array<ArrayBuffer>;
  /** RFC 1421 headers such as `Proc-Type: 4,ENCRYPTED` (old OpenSSL encrypted keys). */
  headers: string[];
}

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;
const LINE_BREAK = /\r\n|\r|\n|\\r\\n|\\n/;
const HEADER = /^[A-Za-z-]+:/;

/** Base64 with any whitespace (or escaped line breaks) in it; null when it is not base64. */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> | null {
  const compact = text.replace(/\s|\\r|\\n/g, "");
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact) || compact.length % 4 === 1) return null;
  try {
    return base64ToBytes(compact);
  } catch {
    return null;
  }
}

/** The blocks of a PEM text, or the bytes of bare base64; null when it is neither. */
export function readDerBlocks(text: string): DerBlock[] | null {
  const blocks: DerBlock[] = [];
  for (const [, label = "", body = ""] of text.matchAll(BLOCK)) {
    const lines = body.split(LINE_BREAK).map((line) => line.trim());
    const headers = lines.filter((line) => HEADER.test(line));
    const der = decodeBase64(lines.filter((line) => !HEADER.test(line)).join(""));
    if (!der) return null;
    blocks.push({ label, der, headers });
  }
  if (blocks.length > 0) return blocks;
  // An armor with no matching END line is broken PEM, not base64.
  if (text.includes("-----BEGIN")) return null;
  const der = decodeBase64(text);
  return der ? [{ label: null, der, headers: [] }] : null;
}

export function toPem(label: string, der: Uint8Array, headers: string[] = []): string {
  const body = bytesToBase64(der).replace(/.{64}/g, "$&\n").replace(/\n$/, "");
  const head = headers.length > 0 ? `${headers.join("\n")}\n\n` : "";
  return `-----BEGIN ${label}-----\n${head}${body}\n-----END ${label}-----\n`;
}
