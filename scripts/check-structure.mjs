// The layers of src/ and the one way their imports point (ARCHITECTURE: entry → app → routes →
// services → platform → sii/dte → certificates → lib; services hold what routes do beyond HTTP; adapters implement ports; the sandbox is a simulated
// upstream that only the entry files wire in, behind the SandboxControls port). A line scan of
// every import, type-only ones included: it prints files per layer, the arrows that point up, the
// import cycles, the route groups importing another group, the Hono imports below the API layers
// (services included: a service knows no HTTP), a service that writes the success envelope, a
// route file over ROUTE_FILE_LINES and a file named factory.ts, and exits 1 on any of them. Tests
// (*.test.ts) are left out.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Layer of a path relative to src/, first match wins; also the layer order (ARCHITECTURE.md's table follows it). */
export const LAYERS = [
  ["entry", (p) => p.startsWith("entry/")],
  ["app", (p) => p === "app.ts" || p === "config.ts"],
  ["routes", (p) => p.startsWith("routes/")],
  ["services", (p) => p.startsWith("services/")],
  ["platform", (p) => p.startsWith("platform/")],
  ["adapters", (p) => p.startsWith("adapters/")],
  ["sandbox", (p) => p.startsWith("sandbox/")],
  ["sii", (p) => p.startsWith("sii/")],
  ["dte", (p) => p.startsWith("dte/")],
  ["certificates", (p) => p.startsWith("certificates/")],
  ["ports", (p) => p.startsWith("ports/")],
  ["lib", (p) => p.startsWith("lib/")],
];

/** What each layer may import besides itself. Anything else is an arrow pointing up (or sideways into the simulator). */
export const ALLOWED = {
  entry: ["app", "routes", "services", "platform", "adapters", "sandbox", "sii", "dte", "certificates", "ports", "lib"],
  app: ["routes", "services", "platform", "sii", "dte", "certificates", "ports", "lib"],
  routes: ["services", "platform", "sii", "dte", "certificates", "ports", "lib"],
  services: ["platform", "sii", "dte", "certificates", "ports", "lib"],
  platform: ["sii", "dte", "certificates", "ports", "lib"],
  adapters: ["sii", "dte", "certificates", "ports", "lib"],
  sandbox: ["dte", "certificates", "ports", "lib"],
  sii: ["dte", "certificates", "ports", "lib"],
  dte: ["certificates", "lib"],
  // Certificates and keys (X.509, PEM, PKCS#8, PKCS#12): what SII logins and the DTE engine share.
  certificates: ["lib"],
  ports: ["lib"],
  lib: [],
};

/** Layers that know no HTTP framework: the services, the SII clients, the DTE engine and the certificates both use. */
const NO_HONO = ["services", "sii", "dte", "certificates"];

/**
 * A route file holds its operation's contract, one service call and the answer: this many lines at
 * most. A group's `schema.ts` (its zod schemas, contract only) is not held to it.
 */
export const ROUTE_FILE_LINES = 120;

/** The envelope is written in platform/ alone (envelope.ts): a service returns data. */
const ENVELOPE_MODULE = "platform/envelope.ts";

/** Why a file breaks a rule of its own (not of its imports), or null. */
export function fileProblem(path, text) {
  const name = path.split("/").at(-1);
  if (name === "factory.ts") return "is named factory.ts: name a file for what it holds";
  if (layerOf(path) === "routes" && name !== "schema.ts" && name.endsWith(".ts")) {
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    if (lines > ROUTE_FILE_LINES)
      return `has ${lines} lines: a route file holds its contract, one service call and the answer (at most ${ROUTE_FILE_LINES})`;
  }
  if (layerOf(path) === "services" && /["']?success["']?\s*:\s*true/.test(text))
    return "writes the success envelope: a service returns data";
  return null;
}

/**
 * The routes' shared modules: the files directly in routes/ that any route group may import (a
 * group's files are routes/<group>/…). A group imports only itself and these; these import no group.
 */
export const SHARED_ROUTE_MODULES = [
  "routes/credentials.ts",
  "routes/credential-schemas.ts",
  "routes/certificate-schema.ts",
  "routes/credential-forms.json",
  "routes/example-credentials.ts",
  "routes/example-documents.ts",
  "routes/document-batch.ts",
  "routes/uploaded-xml.ts",
  "routes/job-schema.ts",
  "routes/rcv-shared.ts",
  "routes/verification-schema.ts",
  "routes/folio-fields.ts",
  "routes/folio-ledger-schema.ts",
  "routes/plan-usage.ts",
  "routes/openapi.ts",
  "routes/openapi-info.ts",
  "routes/openapi-defaults.ts",
  "routes/openapi-closed-bodies.ts",
];

/** The route group of a path under routes/ (`routes/<group>/…`), "shared" for a file directly in routes/. */
function routeGroup(path) {
  const parts = path.split("/");
  return parts.length > 2 ? parts[1] : "shared";
}

/** Why an import from one routes file into another breaks the group rule, or null when it does not. */
export function crossGroupProblem(path, target) {
  const from = routeGroup(path);
  const to = routeGroup(target);
  if (from === to && from !== "shared") return null;
  if (to === "shared") return SHARED_ROUTE_MODULES.includes(target) ? null : "is no shared module (SHARED_ROUTE_MODULES)";
  return from === "shared" ? "is a route group; a shared module imports none" : "is another route group";
}

export function layerOf(path) {
  for (const [name, test] of LAYERS) if (test(path)) return name;
  return "other";
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["']([^"']+)["']/g;

/** Import specifiers of a source text: static, re-exports, dynamic and `import("…")` types. */
export function importsOf(text) {
  const found = [];
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (trimmed.startsWith("//") || trimmed.startsWith("*") || trimmed.startsWith("/*")) continue;
    for (const m of line.matchAll(IMPORT)) found.push(m[1]);
  }
  return found;
}

function listTs(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listTs(full));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") && !entry.name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

/** Strongly connected components with more than one file (Tarjan). */
function cycles(graph) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
  return found;
}

/** Reads every src file (or the given `files`: path relative to src → text) and judges its imports. */
export function analyse(srcDir, files) {
  const sources =
    files ?? Object.fromEntries(listTs(srcDir).map((f) => [relative(srcDir, f).split("\\").join("/"), readFileSync(f, "utf8")]));
  const perLayer = {};
  const up = [];
  const crossGroup = [];
  const hono = [];
  const rules = [];
  const graph = new Map();
  for (const [path, text] of Object.entries(sources)) {
    const from = layerOf(path);
    perLayer[from] = (perLayer[from] ?? 0) + 1;
    const problem = fileProblem(path, text);
    if (problem) rules.push(`${path} ${problem}`);
    const edges = [];
    for (const spec of importsOf(text)) {
      if (NO_HONO.includes(from) && (spec === "hono" || spec.startsWith("hono/") || spec.startsWith("@hono/"))) {
        hono.push(`${path} (${from}) → ${spec}`);
      }
      if (!spec.startsWith(".")) continue;
      const target = relative(srcDir, resolve(srcDir, dirname(path), spec))
        .split("\\")
        .join("/");
      if (target.startsWith("..")) continue;
      edges.push(target);
      const to = layerOf(target);
      if (from === "services" && target === ENVELOPE_MODULE)
        rules.push(`${path} imports ${ENVELOPE_MODULE}: a service returns data, platform writes the envelope`);
      const groupProblem = from === "routes" && to === "routes" ? crossGroupProblem(path, target) : null;
      if (groupProblem) {
        crossGroup.push(`${path} → ${target}: ${target} ${groupProblem}`);
      }
      if (to === from || ALLOWED[from]?.includes(to)) continue;
      up.push(`${path} (${from}) → ${target} (${to})`);
    }
    graph.set(path, edges);
  }
  return { perLayer, up, cycles: cycles(graph), crossGroup, hono, rules };
}

function main() {
  const srcDir = resolve(dirname(fileURLToPath(import.meta.url)), "../src");
  const { perLayer, up, cycles: found, crossGroup, hono, rules } = analyse(srcDir);
  const order = [...LAYERS.map(([name]) => name), "other"];
  console.log("Structure of src/ (tests excluded)");
  console.log(
    `  files per layer: ${order
      .filter((l) => perLayer[l])
      .map((l) => `${l} ${perLayer[l]}`)
      .join(", ")}`,
  );
  console.log(`  arrows up: ${up.length}`);
  for (const line of up) console.log(`    ${line}`);
  console.log(`  import cycles: ${found.length}`);
  for (const c of found) console.log(`    ${c.length} files: ${c.join(" ↔ ")}`);
  console.log(`  route groups importing another group: ${crossGroup.length}`);
  for (const line of crossGroup) console.log(`    ${line}`);
  console.log(`  Hono below the API layers (${NO_HONO.join(", ")}): ${hono.length}`);
  for (const line of hono) console.log(`    ${line}`);
  console.log(
    `  files breaking a rule of their own (factory.ts, route files over ${ROUTE_FILE_LINES} lines, services writing the envelope): ${rules.length}`,
  );
  for (const line of rules) console.log(`    ${line}`);
  if (up.length || found.length || perLayer.other || crossGroup.length || hono.length || rules.length) {
    if (perLayer.other) console.log("  files outside every layer: name their layer in scripts/check-structure.mjs");
    process.exitCode = 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
