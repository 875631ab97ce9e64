// ISO-8859-1, exactly: every byte is the code point of the same number. TextDecoder("latin1")
// is really windows-1252 (0x80-0x9F differ) and TextEncoder only does UTF-8, so both ways are here.

export function decodeLatin1(bytes: Uint8Array): string {
  // Pieces joined once: appending each to a growing string took ~40 ms a MB (390 ms for a
  // 2 000-document envelope), joining takes ~5.
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += 0x1000)
    parts.push(String.fromCharCode.apply(null, bytes.subarray(i, i + 0x1000) as unknown as number[]));
  return parts.join("");
}

/** Characters above U+00FF cannot be sent as latin1: they become `replacement` (default "?"). */
export function encodeLatin1(text: string, replacement = 0x3f): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out[i] = c <= 0xff ? c : replacement;
  }
  return out;
}

const UNRESERVED = /[A-Za-z0-9*\-._]/;

/** application/x-www-form-urlencoded with latin1 bytes, as the SII's legacy CGIs expect. */
export function formEncodeLatin1(fields: Record<string, string> | [string, string][]): string {
  const pairs = Array.isArray(fields) ? fields : Object.entries(fields);
  const encode = (s: string) => {
    let out = "";
    for (const byte of encodeLatin1(s)) {
      const ch = String.fromCharCode(byte);
      if (ch === " ") out += "+";
      else if (UNRESERVED.test(ch)) out += ch;
      else out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
    }
    return out;
  };
  return pairs.map(([k, v]) => `${encode(k)}=${encode(v)}`).join("&");
}

/** Decodes a form body whose percent-escapes are latin1 bytes. */
export function formDecodeLatin1(body: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const pair of body.split("&")) {
    if (!pair) continue;
    const [k = "", v = ""] = pair.split("=", 2);
    const decode = (s: string) =>
      s.replace(/\+/g, " ").replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    fields.set(decode(k), decode(v));
  }
  return fields;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

function utf8OrNull(bytes: Uint8Array): string | null {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * Reads a body (of a response, or a request to the sandbox) as the SII sends it: the declared
 * charset, JSON as UTF-8, else latin1. The SII's servers sometimes declare one and send the other:
 * bytes that are not UTF-8 are read as latin1, and a "latin1" body that is valid UTF-8 with
 * non-ASCII characters is read as UTF-8 (latin1 Spanish text is practically never valid UTF-8).
 */
export async function responseText(res: { headers: Headers; arrayBuffer(): Promise<ArrayBuffer> }): Promise<string> {
  return decodeAs(new Uint8Array(await res.arrayBuffer()), res.headers.get("content-type") ?? "");
}

/** Bytes of an SII answer (or a piece of one) as text, by the rule of `responseText`. */
export function decodeAs(bytes: Uint8Array, type: string): string {
  const charset = /charset=([^;\s]+)/i.exec(type)?.[1]?.toLowerCase();
  const declaredUtf8 = charset === "utf-8" || charset === "utf8" || (!charset && /json/i.test(type));
  if (declaredUtf8) return utf8OrNull(bytes) ?? decodeLatin1(bytes);
  if (bytes.some((b) => b >= 0x80)) {
    const utf8 = utf8OrNull(bytes);
    if (utf8 !== null) return utf8;
  }
  return decodeLatin1(bytes);
}
