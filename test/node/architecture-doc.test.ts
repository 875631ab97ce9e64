// ARCHITECTURE.md must say what scripts/check-structure.mjs enforces: its layer table lists the
// layers in LAYERS' order, each with exactly the layers ALLOWED lets it import; it names every
// folder of src/; and it lists the routes' shared modules SHARED_ROUTE_MODULES holds.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ALLOWED, LAYERS, SHARED_ROUTE_MODULES } from "../../scripts/check-structure.mjs";

const root = join(import.meta.dirname, "..", "..");
const architecture = readFileSync(join(root, "ARCHITECTURE.md"), "utf8");
const order = LAYERS.map(([name]) => name);

interface LayerRow {
  layer: string;
  where: string;
  imports: string[];
}

/** The rows of the Layers table: `| layer | where | may import | what it holds |`. */
function layerRows(markdown: string): LayerRow[] {
  const start = markdown.indexOf("\n## Layers\n");
  const end = markdown.indexOf("\n## ", start + 1);
  return markdown
    .slice(start, end)
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| Layer |") && !line.startsWith("|---"))
    .map((line) => {
      const [layer = "", where = "", imports = ""] = line.slice(2, -2).split(" | ");
      return { layer, where, imports: imports === "—" ? [] : imports.split(", ") };
    });
}

/**
 * A layer the document names ahead of the code: not yet in LAYERS and its folder not yet in src/
 * (a branch that adds it updates check-structure with it). Once either exists it is compared.
 */
const ahead = (layer: string) => !order.includes(layer) && !existsSync(join(root, "src", layer));

describe("ARCHITECTURE.md", () => {
  const rows = layerRows(architecture);

  it("states the layer order of check-structure's LAYERS, once", () => {
    expect(rows.length).toBeGreaterThanOrEqual(order.length);
    expect(rows.map((row) => row.layer).filter((layer) => !ahead(layer))).toEqual(order);
    expect(architecture.match(/^\| Layer \|/gm)).toHaveLength(1);
  });

  it("gives each layer exactly the imports ALLOWED gives it, all of them below it", () => {
    for (const { layer, imports } of rows.filter((row) => !ahead(row.layer))) {
      expect(
        imports.filter((name) => !ahead(name)),
        `${layer} may import`,
      ).toEqual(ALLOWED[layer]);
    }
    // "Down this list": every allowed arrow points to a later layer of LAYERS.
    for (const [layer, targets] of Object.entries(ALLOWED)) {
      for (const target of targets) expect(order.indexOf(target), `${layer} → ${target}`).toBeGreaterThan(order.indexOf(layer));
    }
  });

  it("places each layer where check-structure looks for it", () => {
    for (const { layer, where } of rows.filter((row) => !ahead(row.layer))) {
      const paths = [...where.matchAll(/`src\/([^`]+)`/g)].map((m) => m[1] ?? "");
      expect(paths.length, `${layer}: where`).toBeGreaterThan(0);
      for (const path of paths) expect(LAYERS.find(([, test]) => test(path.endsWith("/") ? `${path}x.ts` : path))?.[0], path).toBe(layer);
    }
  });

  it("names every folder of src/", () => {
    const folders = readdirSync(join(root, "src"), { withFileTypes: true }).filter((entry) => entry.isDirectory());
    expect(folders.length).toBeGreaterThan(5);
    for (const { name } of folders) expect(architecture, `src/${name}/`).toContain(`\`src/${name}/\``);
  });

  it("lists the routes' shared modules as check-structure does", () => {
    const listed = /`SHARED_ROUTE_MODULES`: ([^)]*)\)/.exec(architecture.replace(/\n/g, " "))?.[1] ?? "";
    const names = [...listed.matchAll(/`([\w.-]+\.(?:ts|json))`/g)].map((m) => `routes/${m[1]}`);
    expect(names).toEqual(SHARED_ROUTE_MODULES);
  });
});
