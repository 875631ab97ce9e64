// The Worker bundle swaps two packages for slimmer entry points (wrangler.toml [alias]); Node and
// the tests load the packages as they are. Here the aliased modules are bundled the way wrangler
// bundles them and run: the SII's HTML is read, and zod validates and describes, as without them.
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePage, tableRows, textOf } from "../sii/html.ts";

/** wrangler.toml's [alias] table: "package" = "./path". */
function aliases(): Record<string, string> {
  const table = /\[alias\]\n((?:"[^"\n]+" = "[^"\n]+"\n)+)/.exec(readFileSync("wrangler.toml", "utf8"))?.[1] ?? "";
  return Object.fromEntries([...table.matchAll(/"([^"]+)" = "([^"]+)"/g)].map(([, name, path]) => [name, resolve(path as string)]));
}

const ENTRY = `
import { parsePage, tableRows, textOf } from "./src/sii/html.ts";
import { z } from "@hono/zod-openapi";
export { parsePage, tableRows, textOf, z };
`;

const PAGE =
  "<STYLE>td { color: red }</STYLE><TABLE><TR><TH>Rut<TD>76192083-9<TR><TH>Raz&oacute;n Social<TD>Empresa&nbsp;de  Prueba</TABLE><P CLASS=x>Hola";

type Bundled = { parsePage: typeof parsePage; tableRows: typeof tableRows; textOf: typeof textOf; z: typeof import("zod").z };
let dir = "";
let bundled: Bundled;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "bundle-aliases-"));
  const result = await build({
    stdin: { contents: ENTRY, resolveDir: process.cwd(), loader: "ts" },
    bundle: true,
    format: "esm",
    platform: "neutral",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["browser", "module", "main"],
    alias: aliases(),
    external: ["node:*"],
    metafile: true,
    write: false,
    logLevel: "silent",
  });
  // Files that contribute bytes (the graph also lists modules whose code was shaken off).
  const inputs = Object.values(result.metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path),
  );
  // The swaps took effect: no translations, no second copy of the entity tables.
  expect(inputs.filter((path) => path.includes("zod/v4/locales/") && !path.endsWith("/en.js"))).toEqual([]);
  expect(inputs.filter((path) => path.includes("htmlparser2/node_modules/dom-serializer"))).toEqual([]);
  expect(inputs.filter((path) => path.includes("@acemir/cssom"))).toEqual([]);
  const file = join(dir, "bundle.mjs");
  await writeFile(file, result.outputFiles[0]?.text ?? "");
  bundled = (await import(pathToFileURL(file).href)) as Bundled;
}, 30_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the Worker bundle's aliases", () => {
  it("are the three wrangler.toml names", () => {
    expect(Object.keys(aliases()).sort()).toEqual(["@acemir/cssom", "htmlparser2", "zod"]);
  });

  it("read the SII's HTML 4.01 as linkedom with all of htmlparser2 does", () => {
    expect(bundled.tableRows(PAGE)).toEqual(tableRows(PAGE));
    expect(bundled.tableRows(PAGE)).toEqual([
      ["Rut", "76192083-9"],
      ["Razón Social", "Empresa de Prueba"],
    ]);
    expect(bundled.textOf(bundled.parsePage(PAGE).querySelector("p.x"))).toBe(textOf(parsePage(PAGE).querySelector("p.x")));
  });

  it("leave out linkedom's CSS parser, which only a style element's sheet uses and no source reads", () => {
    const style = bundled.parsePage(PAGE).querySelector("style") as unknown as { sheet: unknown; textContent: string };
    expect(style.textContent).toBe("td { color: red }");
    expect(() => style.sheet).toThrow(/not parsed in the Worker bundle/);
    // `.sheet` as a property (a spreadsheet MIME type is not one, nor a spread `...sheet`), outside the stub itself.
    const reads = /(?<!spreadsheetml|\.\.)\.sheet\b|styleSheets/;
    const files = readdirSync("src", { recursive: true, encoding: "utf8" }).filter(
      (f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.endsWith("cssom-bundle.ts"),
    );
    expect(files.filter((f) => reads.test(readFileSync(join("src", f), "utf8")))).toEqual([]);
  });

  it("validate with zod's English messages and describe schemas as JSON Schema", () => {
    const { z } = bundled;
    const schema = z.object({ rut: z.string().regex(/^\d+-[\dK]$/), monto: z.number().int() });
    const failed = schema.safeParse({ rut: 7, monto: 1.5 });
    expect(failed.error?.issues.map((issue) => issue.message)).toEqual([
      "Invalid input: expected string, received number",
      "Invalid input: expected int, received number",
    ]);
    expect(z.toJSONSchema(schema)).toMatchObject({ type: "object", required: ["rut", "monto"] });
    expect(schema.openapi({ example: { rut: "1-9", monto: 1 } })).toBeDefined();
  });
});
