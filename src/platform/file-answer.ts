// Answers given as a file (a PDF, ESC/POS bytes, the SII's page or CSV) rather than the JSON
// envelope: `Content-Disposition` names the file, so browsers, Swagger UI and clients show or save
// it. `inline` for what a browser shows (PDF, HTML), `attachment` for what it cannot (ESC/POS, CSV).
import type { Context } from "hono";

export type Disposition = "inline" | "attachment";

/**
 * `name` with every character but letters, digits, `.`, `_` and `-` made `_`: plain ASCII needs no
 * quoting rules and no `filename*`, and no client reads a path or a second parameter out of it.
 */
export function safeFileName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, "_");
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
