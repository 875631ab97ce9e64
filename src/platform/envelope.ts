// The success envelope every JSON answer uses.
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

export function ok<T, S extends ContentfulStatusCode = 200>(c: Context, data: T, message = "OK", status?: S) {
  return c.json({ success: true as const, message, data, timestamp: new Date().toISOString() }, (status ?? 200) as S);
}
