import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonObjectReader, JsonStreamError, type ObjectPart } from "./json-object-reader.ts";
import { decodeLatin1, encodeLatin1 } from "./latin1.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

/** What the reader must hand over for a whole object: JSON.parse's view of it. */
function expected(object: Record<string, unknown>, streamKey = "data"): ObjectPart[] {
  return Object.entries(object).flatMap(([key, value]): ObjectPart[] =>
    key === streamKey && Array.isArray(value) ? value.map((v) => ({ key, value: v, item: true })) : [{ key, value, item: false }],
  );
}

/** Feeds `input` cut at `cuts` and collects what the reader hands over. */
function read(input: Uint8Array, cuts: number[], reader = new JsonObjectReader("data")): ObjectPart[] {
  const parts: ObjectPart[] = [];
  let from = 0;
  for (const cut of [...cuts, input.length]) {
    parts.push(...reader.push(input.subarray(from, cut)));
    from = cut;
  }
  reader.end();
  return parts;
}

// Strings with escapes and quotes, raw and escaped non-ASCII (a 4-byte character too), nested
// values, every kind of number and literal, members before and after the array.
const SAMPLE = `{ "metaData" : {"page":null,"ids":[1,[2,{"x":"]}"}]]},
  "data":[
    {"detRznSoc":"PANADER\\u00cdA \\"LA ESPIGA\\" \\\\ ÑUÑOA 😀 \\ud83d\\ude00","detNroDoc":1001,"n":-12.5e-3,"a":true,"b":false,"c":null,
     "nested":{"list":[{"k":"v,}]"},[],{}],"empty":""}},
    "a string row", 42 ,-0.5,true,false,null,[1,"two",{"three":3}],{}
  ] ,
  "esDocPapel":false,"respEstado":{"codRespuesta":0,"msgeRespuesta":"Operación exitosa"}}
`;

describe("JsonObjectReader", () => {
  it("hands over each element of `data` and every other member, split at every position", () => {
    const input = bytes(SAMPLE);
    const want = expected(JSON.parse(SAMPLE));
    expect(want.filter((p) => p.item)).toHaveLength(9);
    for (let cut = 0; cut <= input.length; cut++) expect(read(input, [cut]), `cut at ${cut}`).toEqual(want);
  });

  it("reads the sample a byte at a time", () => {
    const input = bytes(SAMPLE);
    const cuts = Array.from({ length: input.length }, (_, i) => i);
    expect(read(input, cuts)).toEqual(expected(JSON.parse(SAMPLE)));
  });

  it("hands over an element as soon as its bytes are in, before the object ends", () => {
    const reader = new JsonObjectReader("data");
    expect(reader.push(bytes('{"data":[{"a":1},{"b"'))).toEqual([{ key: "data", value: { a: 1 }, item: true }]);
    expect(reader.push(bytes(":2}"))).toEqual([{ key: "data", value: { b: 2 }, item: true }]);
    expect(reader.push(bytes('],"respEstado":{"codRespuesta":3}}'))).toEqual([
      { key: "respEstado", value: { codRespuesta: 3 }, item: false },
    ]);
    reader.end();
  });

  it("passes `data` through as a member when it is not an array", () => {
    expect(read(bytes('{"data":null,"respEstado":{"codRespuesta":2}}'), [9])).toEqual([
      { key: "data", value: null, item: false },
      { key: "respEstado", value: { codRespuesta: 2 }, item: false },
    ]);
    expect(read(bytes('{"data":[]}'), [])).toEqual([]);
    expect(read(bytes("{}"), [1])).toEqual([]);
  });

  it("decodes each value with the caller's charset rule", () => {
    const input = encodeLatin1('{"data":["PANADERÍA ÑUÑOA"],"x":"ñ"}');
    const reader = new JsonObjectReader("data", decodeLatin1);
    expect(read(input, [12], reader)).toEqual([
      { key: "data", value: "PANADERÍA ÑUÑOA", item: true },
      { key: "x", value: "ñ", item: false },
    ]);
  });

  it.each([
    ["an HTML page", "<html><body>Ingrese su clave</body></html>"],
    ["a top-level array", "[1,2]"],
    ["a missing comma", '{"data":[1 2]}'],
    ["a missing colon", '{"data" [1]}'],
    ["a bad literal", '{"data":[tru]}'],
    ["a bad number", '{"data":[1.2.3]}'],
    ["an unquoted key", "{data:[1]}"],
    ["a raw control character in a string", '{"data":["a\u0001b"]}'],
    ["a bad escape", '{"data":["\\x41"]}'],
    ["a trailing comma", '{"data":[1,]}'],
    ["garbage after the object", '{"data":[1]} x'],
    ["a closing bracket of the wrong kind", '{"data":[{"a":1]]}'],
  ])("refuses %s", (_, text) => {
    expect(() => read(bytes(text), [])).toThrow(JsonStreamError);
  });

  it.each([
    ["inside a string", '{"data":["abc'],
    ["between elements", '{"data":[1,'],
    ["after the array", '{"data":[1]'],
    ["inside a number at the end", '{"data":[12'],
    ["empty", ""],
  ])("refuses an object cut %s", (_, text) => {
    expect(() => read(bytes(text), [])).toThrow(/ended early/);
  });

  it("refuses a value larger than its limit, before holding more of it", () => {
    const reader = new JsonObjectReader("data", undefined, 64);
    expect(reader.push(bytes(`{"data":["${"x".repeat(40)}"`))).toEqual([{ key: "data", value: "x".repeat(40), item: true }]);
    expect(() => reader.push(bytes(`,"${"y".repeat(100)}`))).toThrow(/larger than 64 bytes/);
  });

  it("agrees with JSON.parse on any object, cut anywhere (property)", () => {
    const object = fc.record(
      {
        before: fc.jsonValue(),
        data: fc.oneof(fc.array(fc.jsonValue(), { maxLength: 8 }), fc.jsonValue()),
        after: fc.jsonValue(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(object, fc.array(fc.nat(), { maxLength: 6 }), fc.boolean(), (value, rawCuts, spaced) => {
        const text = JSON.stringify(value, null, spaced ? 2 : undefined);
        const input = bytes(text);
        const cuts = [...new Set(rawCuts.map((c) => c % (input.length + 1)))].sort((a, b) => a - b);
        // JSON.parse turns -0 into 0 as the reader does; compare through JSON for other edge cases.
        expect(read(input, cuts)).toEqual(expected(JSON.parse(text)));
      }),
      { numRuns: 500 },
    );
  });
});
