// How the idempotency stores whose values are small (a Durable Object's SQLite row, a DynamoDB
// item) keep a stored answer of any size: its JSON text cut into parts of a bounded UTF-8 size.
// The first part stays in the record (an answer that fits is one record, as before parts); the
// rest are kept apart, written before the record says "completed" and read after it does.

const encoder = new TextEncoder();

/**
 * `text` in parts of at most `maxBytes` UTF-8 bytes each (at least one part, "" for ""), never
 * splitting a character: `encodeInto` stops before a character that does not fit. `maxBytes` is
 * at least 4, the longest character.
 */
export function partsOf(text: string, maxBytes: number): string[] {
  const buffer = new Uint8Array(maxBytes);
  const parts: string[] = [];
  let at = 0;
  do {
    // maxBytes characters are at least maxBytes bytes: the part ends within them.
    const window = text.slice(at, at + maxBytes);
    const { read } = encoder.encodeInto(window, buffer);
    parts.push(window.slice(0, read));
    at += read;
  } while (at < text.length);
  return parts;
}

/** Runs `work` on each item, at most `width` at once, in order of the items. */
export async function inGroups<T, R>(items: T[], width: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += width) {
    const group = items.slice(start, start + width);
    results.push(...(await Promise.all(group.map((item, i) => work(item, start + i)))));
  }
  return results;
}
