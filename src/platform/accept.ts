// Reading an `Accept` header: shared by content negotiation (responseFormat) and idempotent
// replays, which must not hand a caller a media type its Accept refuses.

/**
 * The weight an Accept header gives each media type (RFC 9110 §12.5.1): the most specific range
 * that matches decides (the exact type, then its major type with any subtype, then any type); 0 when no
 * range matches.
 */
export function acceptWeights(accept: string): (type: string) => number {
  const ranges = accept.split(",").map((part) => {
    const [range = "", ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    return { range: range.trim(), q: q === undefined ? 1 : Number(q) };
  });
  return (type) => {
    const [major] = type.split("/");
    const match =
      ranges.find((r) => r.range === type) ?? ranges.find((r) => r.range === `${major}/*`) ?? ranges.find((r) => r.range === "*/*");
    return match?.q ?? 0;
  };
}
