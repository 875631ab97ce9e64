// `npm run lint:openapi`: the document the server serves (GET /openapi.json) checked by three
// independent tools: Redocly CLI (redocly.yaml), Spectral (.spectral.yaml) and a validator against
// the official OpenAPI 3.1 JSON Schema. Prints one line per error with its JSON pointer, the
// warnings counted per rule (all of them with --warnings), and exits 1 on any error.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Validator } from "@seriousme/openapi-schema-validator";
import { documentApp } from "./document-app.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name: string) => join(root, "node_modules", ".bin", name);
const showWarnings = process.argv.includes("--warnings");

interface Finding {
  tool: string;
  severity: "error" | "warning";
  rule: string;
  pointer: string;
  message: string;
}

const res = await documentApp().request("/openapi.json");
if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
const doc = (await res.json()) as Record<string, unknown>;

const dir = mkdtempSync(join(tmpdir(), "openapi-lint-"));
const file = join(dir, "openapi.json");
// Pretty-printed, so the tools' line numbers mean something too.
writeFileSync(file, JSON.stringify(doc, null, 2));

function run(command: string, args: string[]): string {
  const out = spawnSync(command, args, {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
  });
  if (out.error) throw out.error;
  if (!out.stdout.trim()) throw new Error(`${command} printed nothing (exit ${out.status}): ${out.stderr.slice(0, 2000)}`);
  return out.stdout;
}

const findings: Finding[] = [];

// Redocly CLI, recommended ruleset (redocly.yaml).
const redocly = JSON.parse(run(bin("redocly"), ["lint", file, "--config", join(root, "redocly.yaml"), "--format=json"]));
for (const p of redocly.problems ?? []) {
  findings.push({
    tool: "redocly",
    severity: p.severity === "error" ? "error" : "warning",
    rule: p.ruleId,
    pointer: p.location?.[0]?.pointer ?? "#",
    message: p.message,
  });
}

// Spectral, its OpenAPI ruleset (.spectral.yaml). Severity 0 is an error.
const spectralOut = run(bin("spectral"), ["lint", file, "--ruleset", join(root, ".spectral.yaml"), "-f", "json", "--quiet"]);
const spectral = JSON.parse(spectralOut.slice(spectralOut.indexOf("[")));
for (const p of spectral) {
  if (p.severity > 1) continue; // info and hints
  findings.push({
    tool: "spectral",
    severity: p.severity === 0 ? "error" : "warning",
    rule: p.code,
    pointer: `#/${(p.path ?? []).map((t: string | number) => String(t).replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`,
    message: p.message,
  });
}

// The official OpenAPI 3.1 JSON Schema (spec.openapis.org/oas/3.1/schema), as packaged by
// @seriousme/openapi-schema-validator.
const validator = new Validator();
const strict = await validator.validate(structuredClone(doc));
if (validator.version !== "3.1")
  findings.push({
    tool: "oas-schema",
    severity: "error",
    rule: "version",
    pointer: "#/openapi",
    message: `read as OpenAPI ${validator.version}`,
  });
for (const e of strict.valid ? [] : ((strict.errors ?? []) as { instancePath: string; message?: string; params?: unknown }[])) {
  // if/then/else failures repeat the specific error below them.
  if (/must match "(then|else)" schema/.test(e.message ?? "")) continue;
  findings.push({
    tool: "oas-schema",
    severity: "error",
    rule: "schema",
    pointer: `#${e.instancePath}`,
    message: `${e.message} ${JSON.stringify(e.params ?? {})}`,
  });
}
rmSync(dir, { recursive: true, force: true });

const errors = findings.filter((f) => f.severity === "error");
const warnings = findings.filter((f) => f.severity === "warning");
for (const f of errors) console.log(`error   ${f.tool} ${f.rule} ${f.pointer} ${f.message}`);
if (showWarnings) for (const f of warnings) console.log(`warning ${f.tool} ${f.rule} ${f.pointer} ${f.message}`);
const perRule = new Map<string, number>();
for (const f of warnings) perRule.set(`${f.tool} ${f.rule}`, (perRule.get(`${f.tool} ${f.rule}`) ?? 0) + 1);
for (const [rule, n] of perRule) console.log(`warnings: ${n} × ${rule}`);
for (const tool of ["redocly", "spectral", "oas-schema"]) {
  const n = errors.filter((f) => f.tool === tool).length;
  console.log(`${tool}: ${n} error${n === 1 ? "" : "s"}, ${warnings.filter((f) => f.tool === tool).length} warnings`);
}
process.exit(errors.length > 0 ? 1 : 0);
