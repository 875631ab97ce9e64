// Pure work a batch repeats: one certificate signs all 2 000 documents of an envelope, one CAF
// stamps a thousand of them. Each result is kept by its input (text, or the very object a kept
// result handed out), a bounded number of them of a bounded size, the oldest dropped first.

/** The longest certificate or key text kept once read: a real one is 1–3 KB, an upload may hold megabytes. */
export const KEPT_TEXT_CHARS = 16 * 1024;

/**
 * `compute` by key, its last `size` results kept; a key `keeps` refuses (one too large to hold, say:
 * the input decides its size) is computed each time and kept not at all.
 */
export function remembered<K, V>(size: number, compute: (key: K) => V, keeps: (key: K) => boolean = () => true): (key: K) => V {
  const kept = new Map<K, V>();
  return (key) => {
    if (kept.has(key)) return kept.get(key) as V;
    const value = compute(key);
    if (!keeps(key)) return value;
    if (kept.size >= size) kept.delete(kept.keys().next().value as K);
    kept.set(key, value);
    return value;
  };
}

/** `compute` by the identity of an object, kept while the object lives. */
export function rememberedFor<K extends object, V>(compute: (key: K) => V): (key: K) => V {
  const kept = new WeakMap<K, V>();
  return (key) => {
    if (kept.has(key)) return kept.get(key) as V;
    const value = compute(key);
    kept.set(key, value);
    return value;
  };
}
