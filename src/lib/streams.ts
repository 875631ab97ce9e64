// (De)compression that goes only as fast as its output is read.

/** What an iterator or a stream reader hands over. */
type Piece = { done?: boolean; value?: unknown };

/**
 * `source` through `transform` (a CompressionStream or DecompressionStream), pulled by the reader:
 * `pipeThrough` into Node's (de)compression streams reads the source far ahead of the reader (a
 * 100 k-document file left ~10 MiB in flight), so a large file would sit in memory after all.
 * At most one write is in flight; a write may wait for its output to be read, so each step waits
 * for whichever comes first.
 */
export function throughOnDemand(
  source: { next(): Piece | Promise<Piece>; return?(): unknown },
  transform: { writable: WritableStream<Uint8Array>; readable: ReadableStream<Uint8Array> },
): ReadableStream<Uint8Array> {
  const writer = transform.writable.getWriter();
  const reader = transform.readable.getReader();
  let fed = false;
  let writing: Promise<void> | null = null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let produced = false;
      const next = reader.read().then((result) => {
        produced = true;
        return result;
      });
      // The transform may hold small inputs back: feed it until it has output or the source ends.
      while (!produced && !fed) {
        if (writing) await Promise.race([writing, next]);
        if (produced) break;
        const piece = await source.next();
        if (piece.done) {
          fed = true;
          writer.close().catch(() => undefined);
          break;
        }
        const write: Promise<void> = writer.write(piece.value as Uint8Array).then(
          () => {
            if (writing === write) writing = null;
          },
          () => undefined,
        );
        writing = write;
      }
      const result = await next;
      if (result.done) controller.close();
      else controller.enqueue(result.value);
    },
    async cancel(reason) {
      await source.return?.();
      await reader.cancel(reason);
    },
  });
}
