// `npm run schemas`: writes schemas/openapi.json and one JSON Schema per request body under
// schemas/requests/, and the certificate forms' fragments the document embeds
// (scripts/credential-forms.ts), the TypeScript client's generated files (scripts/typescript-client.ts)
// and the Postman collection (scripts/postman.ts).
// `npm run schemas -- --check` fails when the committed files differ.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { openApiDocument } from "../src/routes/openapi.ts";
import { CREDENTIAL_FORMS_FILE, credentialFormsText } from "./credential-forms.ts";
import { documentApp } from "./document-app.ts";
import { POSTMAN_FILE, postmanCollectionText } from "./postman.ts";
import { typescriptClientFiles } from "./typescript-client.ts";

type Json = Record<string, unknown>;

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outDir = join(root, "schemas");
const check = process.argv.includes("--check");

const doc = openApiDocument(documentApp()) as unknown as Json;
const components = ((doc.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;

/** Names of the component schemas a schema refers to, transitively. */
function referenced(schema: unknown, found = new Set<string>()): Set<string> {
  const text = JSON.stringify(schema);
  for (const [, name] of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
    if (name && !found.has(name)) {
      found.add(name);
      referenced(components[name], found);
    }
  }
  return found;
}

function requestSchema(operationId: string, schema: Json): Json {
  const defs = Object.fromEntries([...referenced(schema)].sort().map((name) => [name, components[name]]));
  const body = JSON.parse(JSON.stringify(schema).replaceAll("#/components/schemas/", "#/$defs/")) as Json;
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: `requests/${operationId}.json`,
    ...body,
    ...(Object.keys(defs).length ? { $defs: JSON.parse(JSON.stringify(defs).replaceAll("#/components/schemas/", "#/$defs/")) } : {}),
  };
}

const files = new Map<string, string>([["openapi.json", `${JSON.stringify(doc, null, 2)}\n`]]);
for (const operations of Object.values(doc.paths as Record<string, Record<string, Json>>)) {
  for (const operation of Object.values(operations)) {
    const schema = ((operation.requestBody as Json | undefined)?.content as Record<string, Json> | undefined)?.["application/json"]
      ?.schema as Json | undefined;
    if (!schema) continue;
    const id = String(operation.operationId);
    files.set(join("requests", `${id}.json`), `${JSON.stringify(requestSchema(id, schema), null, 2)}\n`);
  }
}

function existing(): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (dir: string, prefix: string) => {
    let entries: import("node:fs").Dirent<string>[];
    try {
      entries = readdirSync(join(outDir, dir), { withFileTypes: true, encoding: "utf8" });
    } catch {
      return;
    }
    for (const entry of entries) {
      const rel = prefix ? join(prefix, entry.name) : entry.name;
      if (entry.isDirectory()) walk(join(dir, entry.name), rel);
      else found.set(rel, readFileSync(join(outDir, rel), "utf8"));
    }
  };
  walk("", "");
  return found;
}

/** The TypeScript client's generated files: with --check, those that differ from the committed ones; else written. */
function typescriptClient(): string[] {
  const drift: string[] = [];
  for (const [file, text] of typescriptClientFiles(root, doc)) {
    const path = join(root, file);
    let committed: string | undefined;
    try {
      committed = readFileSync(path, "utf8");
    } catch {}
    if (committed === text) continue;
    drift.push(file);
    if (!check) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    }
  }
  return drift;
}

/** Whether the Postman collection differs from the committed one; written unless --check. */
async function postmanCollection(): Promise<boolean> {
  const text = await postmanCollectionText(doc);
  let committed: string | undefined;
  try {
    committed = readFileSync(join(root, POSTMAN_FILE), "utf8");
  } catch {}
  if (committed === text) return false;
  if (!check) writeFileSync(join(root, POSTMAN_FILE), text);
  return true;
}

const current = existing();
const forms = credentialFormsText();
const formsDrift = readFileSync(join(root, CREDENTIAL_FORMS_FILE), "utf8") !== forms;
if (check) {
  const drift = [...new Set([...files.keys(), ...current.keys()])].filter((f) => files.get(f) !== current.get(f)).sort();
  if (formsDrift) {
    console.error(`${CREDENTIAL_FORMS_FILE} is out of date (run npm run schemas)`);
    process.exit(1);
  }
  if (drift.length) {
    console.error(`schemas/ is out of date (run npm run schemas): ${drift.join(", ")}`);
    process.exit(1);
  }
  const clientDrift = typescriptClient();
  if (clientDrift.length) {
    console.error(`the TypeScript client is out of date (run npm run schemas): ${clientDrift.join(", ")}`);
    process.exit(1);
  }
  if (await postmanCollection()) {
    console.error(`${POSTMAN_FILE} is out of date (run npm run schemas)`);
    process.exit(1);
  }
  console.log(`schemas/ is up to date (${files.size} files)`);
} else {
  rmSync(outDir, { recursive: true, force: true });
  for (const [file, text] of files) {
    mkdirSync(dirname(join(outDir, file)), { recursive: true });
    writeFileSync(join(outDir, file), text);
  }
  console.log(`wrote ${files.size} files to schemas/`);
  for (const file of typescriptClient()) console.log(`wrote ${file}`);
  if (await postmanCollection()) console.log(`wrote ${POSTMAN_FILE}`);
  if (formsDrift) {
    // The document read at the top embedded the old fragments: run again to bring schemas/ in line.
    writeFileSync(join(root, CREDENTIAL_FORMS_FILE), forms);
    console.log(`wrote ${CREDENTIAL_FORMS_FILE}: run npm run schemas once more, schemas/ was built from the old one`);
    process.exitCode = 1;
  }
}
