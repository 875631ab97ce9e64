// Content negotiation for the operations that answer in several formats (JSON, CSV, PDF…).
import type { Context } from "hono";
import { acceptWeights } from "./accept.ts";

/**
 * The output format of an operation that offers several: `formato` when the caller gave it,
 * else the offered media type the `Accept` header prefers (RFC 9110 §12.5.1: the most specific
 * range that matches gives a type its weight; a tie keeps the first offered, the default), so
 * `Accept: application/json` and any-type ranges keep JSON. The answer then varies by Accept.
 */
export function responseFormat<F extends string>(c: Context, formato: F, offered: Readonly<Record<F, string>>): F {
  if (c.req.query("formato") !== undefined) return formato;
  const accept = c.req.header("accept");
  if (!accept) return formato;
  c.header("Vary", "Accept");
  const weight = acceptWeights(accept);
  let best = formato;
  let bestWeight = weight(offered[formato]);
  for (const format of Object.keys(offered) as F[]) {
    const w = weight(offered[format]);
    if (w > bestWeight) [best, bestWeight] = [format, w];
  }
  return best;
}
