// The document as three client generators read it: openapi-typescript (with openapi-fetch),
// @hey-api/openapi-ts and orval each write a client into a temporary folder, beside a usage file a
// client developer would write (no casts), and `tsc --strict` checks the folder at zero errors. The
// usage files' `@ts-expect-error` lines fail the check when a type is looser than the document: a
// TipoDTE outside the enum or as digits, a base64 XML given a number. Then the document validates
// under swagger-parser and Redocly's `recommended` ruleset with no rule turned off.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const DOC = join(root, "schemas/openapi.json");
const require = createRequire(import.meta.url);
/** Child processes on a busy machine: a hang fails, slowness does not. */
const TIMEOUT = 180_000;

// openapi-typescript's types with openapi-fetch: the two DTE operations a client starts with.
const OPENAPI_TYPESCRIPT_USAGE = `
import createClient from "openapi-fetch";
import type { paths } from "./api";

const client = createClient<paths, "application/json">({ baseUrl: "http://gateway.test", headers: { "x-api-token": "token" } });

export async function calls(xml: string): Promise<{ pdf?: string; warnings: string[] }> {
  const pdf = await client.POST("/api/v1/platform/dte/documentos/pdf", { body: { xml, oficina_sii: "PROVIDENCIA" }, headers: { accept: "application/json" } });
  const normalized = await client.POST("/api/v1/platform/dte/formatos/json", { body: { dte: { Encabezado: { IdDoc: { TipoDTE: 33 } } } } });
  const data = normalized.data?.data;
  // A \`dte\` input answers one document, an \`xml\` input a list.
  return { pdf: pdf.data?.data.pdf, warnings: data && "dte" in data ? data.warnings : [] };
}

export function refused(xml: string) {
  // @ts-expect-error TipoDTE is one of the SII's document types
  client.POST("/api/v1/platform/dte/formatos/json", { body: { dte: { Encabezado: { IdDoc: { TipoDTE: 35 } } } } });
  // @ts-expect-error TipoDTE is a number: digits are a server tolerance, not the document's form
  client.POST("/api/v1/platform/dte/formatos/json", { body: { dte: { Encabezado: { IdDoc: { TipoDTE: "33" } } } } });
  // @ts-expect-error the XML is base64 text
  client.POST("/api/v1/platform/dte/documentos/pdf", { body: { xml: 42 } });
  // @ts-expect-error the XML is required
  client.POST("/api/v1/platform/dte/documentos/pdf", { body: { papel: "carta" } });
  return client.POST("/api/v1/platform/dte/documentos/pdf", { body: { xml, papel: "80mm", oficina_sii: "PROVIDENCIA" } });
}
`;

// @hey-api/openapi-ts's SDK functions, configured once on its default client.
const HEY_API_USAGE = `
import { client } from "./client.gen";
import { postPlatformDteDocumentosPdf, postPlatformDteFormatosJson } from "./sdk.gen";
import type { NormalizeRequest, PdfRequest } from "./types.gen";

client.setConfig({ baseUrl: "http://gateway.test", headers: { "X-API-Token": "token" } });

export async function calls(xml: string): Promise<{ pdf?: string; ok: boolean }> {
  const request: PdfRequest = { xml, cedible: true };
  const pdf = await postPlatformDteDocumentosPdf({ body: request, headers: { accept: "application/json" } });
  const body: NormalizeRequest = { dte: { Encabezado: { IdDoc: { TipoDTE: 39 } } } };
  const normalized = await postPlatformDteFormatosJson({ body });
  return { pdf: pdf.data?.data.pdf, ok: normalized.data?.success === true };
}

// @ts-expect-error TipoDTE is one of the SII's document types
export const unknownType: NormalizeRequest = { dte: { Encabezado: { IdDoc: { TipoDTE: 35 } } } };
// @ts-expect-error TipoDTE is a number
export const digits: NormalizeRequest = { dte: { Encabezado: { IdDoc: { TipoDTE: "33" } } } };
// @ts-expect-error the XML is base64 text
export const number: PdfRequest = { xml: 42 };
`;

// orval's fetch client: one function per operation, the answer discriminated by status.
const ORVAL_USAGE = `
import { postPlatformDteDocumentosPdf, postPlatformDteFormatosJson, type NormalizeRequest, type PdfRequest } from "./api";

const headers = { "X-API-Token": "token", accept: "application/json" };

export async function calls(xml: string): Promise<{ pdf?: string; ok: boolean }> {
  const request: PdfRequest = { xml };
  const pdf = await postPlatformDteDocumentosPdf(request, { headers });
  const normalized = await postPlatformDteFormatosJson({ dte: { Encabezado: { IdDoc: { TipoDTE: 61 } } } }, { headers });
  return {
    pdf: pdf.status === 200 && !(pdf.data instanceof Blob) ? pdf.data.data.pdf : undefined,
    ok: normalized.status === 200 && normalized.data.success,
  };
}

// @ts-expect-error TipoDTE is one of the SII's document types
export const unknownType: NormalizeRequest = { dte: { Encabezado: { IdDoc: { TipoDTE: 35 } } } };
// @ts-expect-error TipoDTE is a number
export const digits: NormalizeRequest = { dte: { Encabezado: { IdDoc: { TipoDTE: "33" } } } };
// @ts-expect-error the XML is base64 text
export const number: PdfRequest = { xml: 42 };
`;

let dir = "";

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "openapi-generators-"));
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `node <args>` with the repository's Node, from the temporary folder (a generator's logs land there). */
function node(args: string[]): string {
  const out = spawnSync(process.execPath, args, { cwd: dir, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (out.error) throw out.error;
  const printed = `${out.stdout}${out.stderr}`;
  if (out.status !== 0) throw new Error(`node ${args.join(" ")} exited ${out.status}:\n${printed}`);
  return out.stdout;
}

/** The TypeScript 5 redirect the generators built on the compiler API need (TypeScript 7 has none). */
const withTypescript5 = ["--import", join(root, "test/support/openapi-typescript/register.mjs")];

/** `tsc --strict` over every .ts file of `folder` (generated code and usage alike); its messages, empty when clean. */
function typeCheck(folder: string, paths: Record<string, string[]> = {}): { status: number | null; messages: string } {
  const compilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: "ES2022",
    module: "ESNext",
    moduleResolution: "bundler",
    lib: ["ES2022", "DOM"],
    types: [],
    paths,
  };
  writeFileSync(join(folder, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["**/*.ts"] }));
  const tsc = join(dirname(require.resolve("typescript/package.json")), "bin/tsc");
  const out = spawnSync(process.execPath, [tsc, "-p", folder], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (out.error) throw out.error;
  return { status: out.status, messages: `${out.stdout}${out.stderr}` };
}

describe("clients generated from the document compile under tsc --strict", () => {
  it(
    "openapi-typescript with openapi-fetch",
    () => {
      const folder = join(dir, "openapi-typescript");
      mkdirSync(folder);
      // A .ts file, not .d.ts: skipLibCheck would leave a declaration file's own errors unchecked.
      node([...withTypescript5, join(root, "test/support/openapi-typescript/generate.mjs"), DOC, join(folder, "api.ts")]);
      writeFileSync(join(folder, "usage.ts"), OPENAPI_TYPESCRIPT_USAGE);
      // The temporary folder reads openapi-fetch's types from this repository's node_modules.
      const checked = typeCheck(folder, { "openapi-fetch": [dirname(require.resolve("openapi-fetch/package.json"))] });
      expect(checked.messages).toBe("");
      expect(checked.status).toBe(0);
    },
    TIMEOUT,
  );

  it(
    "@hey-api/openapi-ts",
    () => {
      const folder = join(dir, "hey-api");
      node([...withTypescript5, join(root, "node_modules/@hey-api/openapi-ts/dist/run.mjs"), "-i", DOC, "-o", folder]);
      writeFileSync(join(folder, "usage.ts"), HEY_API_USAGE);
      const checked = typeCheck(folder);
      expect(checked.messages).toBe("");
      expect(checked.status).toBe(0);
    },
    TIMEOUT,
  );

  it(
    "orval (fetch client, one file)",
    () => {
      const folder = join(dir, "orval");
      const cli = join(root, "node_modules/orval/dist/bin/orval.mjs");
      node([cli, "-i", DOC, "-o", join(folder, "api.ts"), "--client", "fetch", "--mode", "single", "--fail-on-warnings"]);
      writeFileSync(join(folder, "usage.ts"), ORVAL_USAGE);
      const checked = typeCheck(folder);
      expect(checked.messages).toBe("");
      expect(checked.status).toBe(0);
    },
    TIMEOUT,
  );
});

/** Redocly's findings on the document, as its JSON output gives them. */
interface RedoclyReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

/**
 * The warnings `recommended` gives this document, each a rule reading a conditional (`if`/`then`)
 * part of a schema on its own: they stay warnings (none is turned off), and any other is a failure.
 */
const EXPECTED_WARNINGS: Record<string, (problem: RedoclyReport["problems"][number]) => boolean> = {
  // An `if`/`then` lists in `required` a property that the schema beside it defines: the rule
  // looks for it in the conditional alone ("a CAF needs folios": `caf`, `Folio`).
  "no-required-schema-properties-undefined": (p) => /\/(if|then)\//.test(p.location[0]?.pointer ?? ""),
  // The rule checks an example as if every subschema forbade the properties it does not list; a
  // conditional lists only the field it constrains (redocly.yaml, which CI lints with, relaxes it).
  "no-invalid-schema-examples": (p) => /unevaluated properties|must match "then" schema/.test(p.message),
};

describe("the document validates", () => {
  it(
    "under swagger-parser",
    async () => {
      const api = await SwaggerParser.validate(DOC);
      expect(api).toHaveProperty("openapi", "3.1.0");
    },
    TIMEOUT,
  );

  it(
    "under Redocly's recommended ruleset, unchanged: no error, only the warnings explained above",
    () => {
      // From the temporary folder, so redocly.yaml's one adjustment is not read.
      const cli = join(dirname(require.resolve("@redocly/cli/package.json")), "bin/cli.js");
      const out = spawnSync(process.execPath, [cli, "lint", DOC, "--extends", "recommended", "--format=json"], {
        cwd: dir,
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      });
      if (out.error) throw out.error;
      const report: RedoclyReport = JSON.parse(out.stdout);
      const errors = report.problems.filter((p) => p.severity === "error");
      expect(errors.map((p) => `${p.ruleId} ${p.location[0]?.pointer} ${p.message}`)).toEqual([]);
      expect(out.status).toBe(0);
      const unexplained = report.problems.filter((p) => !EXPECTED_WARNINGS[p.ruleId]?.(p));
      expect(unexplained.map((p) => `${p.ruleId} ${p.location[0]?.pointer} ${p.message}`)).toEqual([]);
    },
    TIMEOUT,
  );
});
