// A field of a JSON body refused with 400 naming it, as every operation (and the services behind
// them) refuses a value the schema let through but the work cannot use.
import { base64ToBytes } from "../lib/encoding.ts";
import { ApiError } from "./errors.ts";

export function fieldError(path: string, message: string): ApiError {
  return new ApiError(400, "VALIDATION_ERROR", `${path} ${message}`, { errors: [{ path, location: "body", message }] });
}

/** The bytes of the base64 field at `path` (whitespace dropped), or 400 naming it. */
export function base64Field(path: string, value: string): Uint8Array<ArrayBuffer> {
  try {
    return base64ToBytes(value.replace(/\s+/g, ""));
  } catch {
    throw fieldError(path, "is not base64");
  }
}
