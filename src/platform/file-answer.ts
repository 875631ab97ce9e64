// Answers given as a file (a PDF, ESC/POS bytes, the SII's page or CSV) rather than the JSON
// envelope: `Content-Disposition` names the file, so browsers, Swagger UI and clients show or save
// it. `inline` for what a browser shows (PDF, HTML), `attachment` for what it cannot (ESC/POS, CSV).
import type { Context } from "hono";

export type Disposition = "inline" | "attachment";

/** A name's longest form: it may come from the uploaded XML (the carátula's RUT), and a header must stay small. */
export const MAX_FILE_NAME = 120;

/**
 * `name` with every character but letters, digits, `.`, `_` and `-` made `_`: plain ASCII needs no
 * quoting rules and no `filename*`, and no client reads a path or a second parameter out of it.
 * A longer name keeps its start and its extension.
 */
export function safeFileName(name: string): string {
  const safe = name.replace(/[^A-Za-z0-9._-]/g, "_");
  if (safe.length <= MAX_FILE_NAME) return safe;
  const extension = /\.[A-Za-z0-9]{1,8}$/.exec(safe.slice(-9))?.[0] ?? "";
  return safe.slice(0, MAX_FILE_NAME - extension.length) + extension;
}

export function contentDisposition(disposition: Disposition, name: string): string {
  return `${disposition}; filename="${safeFileName(name)}"`;
}

/** A file answer: its bytes, media type and name. */
export function fileAnswer(c: Context, bytes: Uint8Array, file: { type: string; disposition: Disposition; name: string }): Response {
  return c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
    "content-type": file.type,
    "content-disposition": contentDisposition(file.disposition, file.name),
  });
}

/** `Content-Disposition` as an operation's 200 declares it: on the file form only, never on its JSON form. */
export function contentDispositionHeader(example: string) {
  return {
    "Content-Disposition": {
      description:
        "On the file form only (absent on `Accept: application/json`): `inline` for what a browser shows (PDF, HTML), `attachment` for what it saves (ESC/POS, CSV), and the file's name (ASCII letters, digits, `.`, `_`, `-`)",
      required: false,
      schema: { type: "string" as const, example },
    },
  };
}
