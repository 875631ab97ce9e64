// The printed stamp's size (docs/dte-engine.md §12.5), read from the PDF's own drawing commands:
// the PDF417 image's transform gives its box in points (1 pt = 0.03528 cm), asserted against the
// SII's bounds on letter and on the 80 mm roll, for a one-line document and a 300-line one.
import { inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { stampGeometry } from "../../src/dte/render/stamp-geometry.ts";
import { base64ToBytes, bytesToBase64 } from "../../src/lib/encoding.ts";
import { EXAMPLE_ENVELOPE } from "../../src/routes/example-documents.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const PDF = "/api/v1/platform/dte/documentos/pdf";
const CM = 2.54 / 72;

/** Each page's MediaBox and its inflated content stream. */
function pages(bytes: ArrayBuffer): { width: number; height: number; content: string }[] {
  const raw = Buffer.from(bytes).toString("latin1");
  const found = [];
  for (const page of raw.matchAll(/\/MediaBox \[0 0 ([\d.]+) ([\d.]+)\] [^>]*\/Contents (\d+) 0 R/g)) {
    const object = new RegExp(`\\n${page[3]} 0 obj\\n<< /Filter /FlateDecode /Length (\\d+) >>\\nstream\\n`).exec(raw);
    const start = (object?.index ?? 0) + (object?.[0].length ?? 0);
    const content = inflateSync(Buffer.from(raw.slice(start, start + Number(object?.[1])), "latin1")).toString("latin1");
    found.push({ width: Number(page[1]), height: Number(page[2]), content });
  }
  return found;
}

/** The stamp's box in points (x, y from the page's bottom left), from `w 0 0 h x y cm /TedN Do`. */
function stampBox(content: string) {
  const draw = /([\d.]+) 0 0 ([\d.]+) ([\d.-]+) ([\d.-]+) cm \/Ted\d+ Do/.exec(content);
  if (!draw) throw new Error("no stamp drawn");
  const [width, height, x, y] = draw.slice(1).map(Number) as [number, number, number, number];
  return { width, height, x, y };
}

/** Every text's start and every rule's span, in points: what must stay out of the quiet zone. */
function marks(content: string) {
  const texts = [...content.matchAll(/\/F\d ([\d.]+) Tf ([\d.-]+) ([\d.-]+) Td/g)].map((m) => {
    const [size, x, y] = m.slice(1).map(Number) as [number, number, number];
    return { left: x, right: x, bottom: y - size * 0.25, top: y + size };
  });
  const rules = [...content.matchAll(/([\d.-]+) ([\d.-]+) m ([\d.-]+) [\d.-]+ l S/g)].map((m) => {
    const [x1, y, x2] = m.slice(1).map(Number) as [number, number, number];
    return { left: x1, right: x2, bottom: y, top: y };
  });
  return [...texts, ...rules];
}

async function printed(xml: string, papel: "carta" | "80mm") {
  const t = probeApp(undefined, { maxBodyBytes: 4 * 1024 * 1024 });
  const token = await tokenFor(t.deps);
  const res = await postJson(t.app, token.secret, PDF, { xml, papel, oficina_sii: "PROVIDENCIA" });
  expect(res.status).toBe(200);
  return pages(await res.arrayBuffer());
}

/** The example's document with its Detalle line repeated: the TED is the same, the page far longer. */
function withLines(count: number): string {
  const genuine = String.fromCharCode(...base64ToBytes(EXAMPLE_ENVELOPE));
  const line = /<Detalle>[\s\S]*?<\/Detalle>/.exec(genuine)?.[0] ?? "";
  return bytesToBase64(Uint8Array.from(genuine.replace(line, line.repeat(count)), (ch) => ch.charCodeAt(0)));
}

function expectWithinBounds(page: { width: number; height: number; content: string }, papel: "carta" | "80mm") {
  const box = stampBox(page.content);
  const [width, height] = [box.width * CM, box.height * CM];
  expect(height, "height, cm").toBeGreaterThanOrEqual(2);
  expect(height, "height, cm").toBeLessThanOrEqual(3);
  expect(width, "width, cm").toBeGreaterThanOrEqual(5);
  expect(width, "width, cm").toBeLessThanOrEqual(9);
  const quiet = 0.635 / CM;
  expect(box.x, "quiet zone left").toBeGreaterThanOrEqual(quiet);
  expect(page.width - box.x - box.width, "quiet zone right").toBeGreaterThanOrEqual(quiet);
  expect(box.y, "quiet zone below, on the page").toBeGreaterThanOrEqual(quiet);
  expect(page.height - box.y - box.height, "quiet zone above").toBeGreaterThanOrEqual(quiet);
  if (papel === "carta") expect(box.x * CM, "left edge, cm").toBeGreaterThanOrEqual(2);
  const zone = { left: box.x - quiet, right: box.x + box.width + quiet, bottom: box.y - quiet, top: box.y + box.height + quiet };
  const inside = marks(page.content).filter(
    (m) => m.right > zone.left && m.left < zone.right && m.top > zone.bottom && m.bottom < zone.top,
  );
  expect(inside, "text or rules in the quiet zone").toEqual([]);
}

describe("the printed stamp's size", () => {
  for (const papel of ["carta", "80mm"] as const) {
    it(`keeps the PDF417 within 2–3 × 5–9 cm with its quiet zone on ${papel}, for one line and for 300`, async () => {
      const one = await printed(EXAMPLE_ENVELOPE, papel);
      const many = await printed(withLines(300), papel);
      // 300 lines take several letter pages (the stamp on the last, with the totals); a roll grows instead.
      expect([one.length, many.length > 1]).toEqual([1, papel === "carta"]);
      for (const page of [one[0], many.at(-1)]) {
        if (!page) throw new Error("no page");
        expectWithinBounds(page, papel);
      }
      for (const page of many.slice(0, -1)) expect(page.content).not.toMatch(/\/Ted\d+ Do/);
    });
  }

  it("picks columns and a module of at least 0.170 mm that fit every bound, for TEDs short and long", () => {
    for (const bytes of [300, 450, 600, 741, 900, 1100]) {
      for (const room of [90, 80 - 2 * 6.35]) {
        const { symbol, module } = stampGeometry(new Uint8Array(bytes).fill(0x41), room);
        const x = module * (25.4 / 72);
        const [width, height] = [symbol.width * x, symbol.rows * 3 * x];
        expect(x, `${bytes} bytes: module, mm`).toBeGreaterThanOrEqual(0.17);
        expect([height >= 20, height <= 30, width >= 50, width <= room], `${bytes} bytes in ${room} mm: ${width} × ${height} mm`).toEqual([
          true,
          true,
          true,
          true,
        ]);
      }
    }
  });
});
