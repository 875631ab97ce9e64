// A client developer's first hour: the TypeScript client generated from the served document
// (openapi-typescript types + openapi-fetch) type-checks against the gateway's contract and calls
// the PDF (bytes, and base64 in JSON on Accept) and an RCV detail as CSV. openapi-python-client is a
// Python tool this Node suite does not run; the last test pins what it reads (`format: binary`).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import createClient from "openapi-fetch";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { decodeLatin1 } from "../../src/lib/latin1.ts";
import { EXAMPLE_ENVELOPE } from "../../src/routes/example-documents.ts";
import { documentOf, operationsIn, valueAt } from "../support/answers.ts";
import { testDeps, tokenFor } from "../support/app.ts";

const support = join(import.meta.dirname, "../support/openapi-typescript");
const require = createRequire(import.meta.url);

// What a client developer writes. `createClient<paths, "application/json">` types `data` as the JSON form;
// `parseAs` takes the bytes of a binary answer. The `@ts-expect-error` lines fail the type check when
// their line compiles: an `auth` with neither key must not.
const USAGE = `
import type createClient from "openapi-fetch";
import type { components, paths } from "./api.d.ts";

type Auth = components["schemas"]["RcvAuth"]["auth"];
export const clave: Auth = { pass: { rut: "76192083-9", clave: "sandbox76" } };
// @ts-expect-error exactly one of pass or cert
export const neither: Auth = {};

export async function run(make: typeof createClient, fetch: (request: Request) => Promise<Response>, token: string, xml: string) {
  const client = make<paths, "application/json">({ baseUrl: "http://gateway.test", fetch, headers: { "x-api-token": token } });
  // papel, cedible and copias have defaults: a body without them compiles.
  const pdf = await client.POST("/api/v1/platform/dte/documentos/pdf", { body: { xml, oficina_sii: "PROVIDENCIA" }, parseAs: "arrayBuffer" });
  const json = await client.POST("/api/v1/platform/dte/documentos/pdf", { body: { xml, oficina_sii: "PROVIDENCIA" }, headers: { accept: "application/json" } });
  const path = { receptor: "76192083-9", periodo: "202405", dte: 33, estado: "REGISTRO" } as const;
  const csv = await client.POST("/api/v1/sii/rcv/compras/detalle/{receptor}/{periodo}/{dte}/{estado}", {
    params: { path, query: { formato: "csv" } },
    body: { auth: clave },
    parseAs: "arrayBuffer",
  });
  const detail = await client.POST("/api/v1/sii/rcv/compras/detalle/{receptor}/{periodo}/{dte}/{estado}", { params: { path }, body: { auth: clave } });
  const pdfBytes: ArrayBuffer | undefined = pdf.data;
  const base64: string | undefined = json.data?.data.pdf;
  const csvBytes: ArrayBuffer | undefined = csv.data;
  const registros: number | undefined = detail.data?.data.registros;
  return { pdfBytes, pdfType: pdf.response.headers.get("content-type"), base64, csvBytes, csvType: csv.response.headers.get("content-type"), registros };
}
`;

/** What usage.ts exports, as the test calls it (the module exists only once generated). */
interface Usage {
  run(
    make: typeof createClient,
    fetch: (request: Request) => Promise<Response>,
    token: string,
    xml: string,
  ): Promise<{
    pdfBytes?: ArrayBuffer;
    pdfType: string | null;
    base64?: string;
    csvBytes?: ArrayBuffer;
    csvType: string | null;
    registros?: number;
  }>;
}

let dir = "";

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "openapi-clients-"));
  const { deps } = testDeps();
  const served = await createApp(() => deps).request("/openapi.json");
  writeFileSync(join(dir, "openapi.json"), JSON.stringify(await documentOf(served)));
  execFileSync(process.execPath, [
    "--import",
    pathToFileURL(join(support, "register.mjs")).href,
    join(support, "generate.mjs"),
    join(dir, "openapi.json"),
    join(dir, "api.d.ts"),
  ]);
  writeFileSync(join(dir, "usage.ts"), USAGE);
  // The temporary project resolves openapi-fetch's types from this repository's node_modules.
  const fetchTypes = dirname(require.resolve("openapi-fetch/package.json"));
  const compilerOptions = {
    target: "ES2023",
    lib: ["ES2023", "DOM"],
    module: "ESNext",
    moduleResolution: "bundler",
    strict: true,
    noEmit: true,
    allowImportingTsExtensions: true,
    types: [],
    paths: { "openapi-fetch": [fetchTypes] },
  };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["usage.ts"] }));
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the generated TypeScript client", () => {
  it("type-checks: defaults optional in request bodies, the auth one-of enforced, binary answers read with parseAs", () => {
    const tsc = join(dirname(require.resolve("typescript/package.json")), "bin/tsc");
    const checked = spawnSync(process.execPath, [tsc, "-p", join(dir, "tsconfig.json")], { encoding: "utf8" });
    expect(`${checked.stdout}${checked.stderr}`).toBe("");
    expect(checked.status).toBe(0);
  });

  it("calls pdf (bytes and base64) and the RCV detail as CSV and as JSON", async () => {
    const { deps } = testDeps();
    const app = createApp(() => deps);
    const { secret } = await tokenFor(deps);
    const usage: Usage = await import(pathToFileURL(join(dir, "usage.ts")).href);
    const out = await usage.run(createClient, (request) => Promise.resolve(app.fetch(request)), secret, EXAMPLE_ENVELOPE);
    expect(out.pdfType).toBe("application/pdf");
    expect(new TextDecoder().decode(out.pdfBytes?.slice(0, 5))).toBe("%PDF-");
    expect(atob(out.base64 ?? "").slice(0, 5)).toBe("%PDF-");
    expect(out.csvType).toMatch(/^text\/csv; charset=ISO-8859-1/);
    const csv = decodeLatin1(new Uint8Array(out.csvBytes ?? new ArrayBuffer(0)));
    expect(csv.split("\n")[0]).toMatch(/;/);
    expect(out.registros).toBeGreaterThan(0);
  });

  it("finds in the document what those generators read: bytes as format binary, no shared example key", async () => {
    const { deps } = testDeps();
    const doc = await documentOf(await createApp(() => deps).request("/openapi.json"));
    const bytes: string[] = [];
    for (const { path, operation } of operationsIn(doc)) {
      for (const [type, media] of Object.entries(operation.responses?.["200"]?.content ?? {})) {
        if (type === "application/json") continue;
        bytes.push(`${path} ${type}`);
        expect(valueAt(media, "schema"), `${path} ${type}`).toEqual({ type: "string", format: "binary" });
      }
    }
    expect(bytes).toEqual(
      expect.arrayContaining([
        "/api/v1/platform/dte/documentos/pdf application/pdf",
        "/api/v1/platform/dte/documentos/escpos application/octet-stream",
        "/api/v1/sii/rcv/compras/detalle/{receptor}/{periodo}/{dte}/{estado} text/csv",
        "/api/v1/sii/bte/emitidas/resumen/{anio} text/csv",
      ]),
    );
    // One example key for every write made Swagger UI's Try it out answer the second write with a 409.
    const key = doc.components?.parameters?.["Idempotency-Key"];
    expect(JSON.stringify(key)).not.toMatch(/"examples?"/);
  });
});
