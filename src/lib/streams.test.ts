import { describe, expect, it } from "vitest";
import { throughOnDemand } from "./streams.ts";

/** `count` chunks of 16 KiB that compress poorly (a deterministic pseudo-random sequence), counting pulls. */
function chunks(count: number) {
  const pulled = { n: 0, returned: false };
  let seed = 7;
  function* make() {
    try {
      for (; pulled.n < count; ) {
        pulled.n++;
        const chunk = new Uint8Array(16 * 1024);
        for (let i = 0; i < chunk.length; i++) {
          seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
          chunk[i] = seed >>> 24;
        }
        yield chunk;
      }
    } finally {
      pulled.returned = pulled.n < count;
    }
  }
  return { source: make(), pulled };
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

describe("throughOnDemand", () => {
  it("compresses and decompresses back to the same bytes", async () => {
    const original = new Uint8Array([...chunks(40).source].flatMap((chunk) => [...chunk]));
    const gzipped = throughOnDemand(chunks(40).source, new CompressionStream("gzip")).getReader();
    const back = throughOnDemand(
      { next: () => gzipped.read() },
      new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>,
    );
    expect(await readAll(back)).toEqual(original);
    expect(original.length).toBe(40 * 16 * 1024);
  });

  it("reads the source only as far as its output is read", async () => {
    const { source, pulled } = chunks(1000);
    const reader = throughOnDemand(source, new CompressionStream("gzip")).getReader();
    for (let i = 0; i < 3; i++) expect((await reader.read()).done).toBe(false);
    // Three outputs of a compressor that holds back little need a few inputs, not the 1000.
    expect(pulled.n).toBeLessThan(20);
    await reader.cancel();
    expect(pulled.returned).toBe(true);
  });
});
