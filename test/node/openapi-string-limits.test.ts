// Every string a request may carry has a documented length bound: a path, query or header
// parameter and every string inside a request body (through `$ref`s, oneOf/anyOf/allOf, items,
// properties and additionalProperties) states `maxLength`, so no field takes megabytes a handler
// might copy into its answer (the vehicle search once echoed a 9 MB `tipo`). An enum or a const
// bounds itself. The server enforces the same bound: an over-long value is refused with a short
// answer that names the limit.
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { errorOf } from "../support/answers.ts";
import { testDeps, tokenFor } from "../support/app.ts";
import { documentedOperations, type Json, resolve, servedDocument } from "../support/openapi-schema.ts";

// A body limit above the default (10 MiB) so that only the field's own bound refuses a 9 MB string.
const { deps } = testDeps(undefined, { maxBodyBytes: 16 * 1024 * 1024 });
const app = createApp(() => deps);
const doc = await servedDocument(app);

/** The JSON pointers-ish paths of request string schemas without `maxLength`. */
function unbounded(schema: Json, where: string, seen: Set<Json>, out: string[]): void {
  if (schema === null || typeof schema !== "object") return;
  const node = resolve(doc, schema);
  if (seen.has(node)) return;
  seen.add(node);
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes("string") && node.enum === undefined && node.const === undefined && node.maxLength === undefined) {
    out.push(where);
  }
  for (const key of ["oneOf", "anyOf", "allOf", "prefixItems"] as const) {
    for (const [i, sub] of (node[key] ?? []).entries()) unbounded(sub, `${where}/${key}/${i}`, seen, out);
  }
  for (const key of ["items", "additionalProperties", "not", "contains"] as const) {
    if (node[key] && typeof node[key] === "object") unbounded(node[key], `${where}/${key}`, seen, out);
  }
  for (const [name, sub] of Object.entries<Json>(node.properties ?? {})) unbounded(sub, `${where}.${name}`, seen, out);
  for (const [name, sub] of Object.entries<Json>(node.patternProperties ?? {})) unbounded(sub, `${where}[${name}]`, seen, out);
}

describe("request strings of the served OpenAPI document", () => {
  it("state maxLength on every parameter and body string (enums and consts aside)", () => {
    const out: string[] = [];
    for (const { method, path, op } of documentedOperations(doc)) {
      const item = doc.paths[path];
      for (const raw of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
        const p = resolve(doc, raw);
        unbounded(p.schema, `${method} ${path} ${p.in}:${p.name}`, new Set(), out);
      }
      const body = op.requestBody && resolve(doc, op.requestBody);
      for (const [type, media] of Object.entries<Json>(body?.content ?? {})) {
        unbounded(media.schema, `${method} ${path} body(${type})`, new Set(), out);
      }
    }
    expect(out).toEqual([]);
  });
});

describe("an over-long request string", () => {
  it("vehicle search: a 9 MB tipo is refused with a short answer naming the limit, not echoed", async () => {
    const token = (await tokenFor(deps)).secret;
    const tipo = "X".repeat(9 * 1024 * 1024);
    const res = await app.request("/api/v1/sii/vehiculos/tasacion/buscar", {
      method: "POST",
      headers: { "x-api-token": token, "content-type": "application/json" },
      body: JSON.stringify({ categoria: 1, tipo }),
    });
    const text = await res.text();
    expect(res.status).toBe(422);
    expect(text.length).toBeLessThan(2000);
    const body = JSON.parse(text);
    expect(body.error_code).toBe("VALIDATION_ERROR");
    expect(body.errors).toContainEqual(
      expect.objectContaining({ path: "tipo", message: `must be at most 200 characters (got ${tipo.length})` }),
    );
  });

  it("a path parameter too long for a RUT names its limit", async () => {
    const token = (await tokenFor(deps)).secret;
    const res = await app.request(`/api/v1/sii/rcv/ventas/resumen/${"1".repeat(40)}-9/202401`, {
      method: "POST",
      headers: { "x-api-token": token, "content-type": "application/json" },
      body: JSON.stringify({ auth: { pass: { rut: "76192083-9", clave: "x" } } }),
    });
    const body = await errorOf(res);
    expect(res.status).toBe(400);
    expect(body.errors).toContainEqual(expect.objectContaining({ path: "emisor", message: "must be at most 12 characters (got 42)" }));
  });

  it("an unknown key of megabytes comes back cut short", async () => {
    const token = (await tokenFor(deps)).secret;
    const pass = { rut: "76192083-9", clave: "x", ["k".repeat(1024 * 1024)]: 1 };
    const res = await app.request("/api/v1/sii/rcv/ventas/resumen/76192083-9/202401", {
      method: "POST",
      headers: { "x-api-token": token, "content-type": "application/json" },
      body: JSON.stringify({ auth: { pass } }),
    });
    const text = await res.text();
    expect(res.status).toBe(422);
    expect(text.length).toBeLessThan(2000);
  });

  it("a path of no route is cut short in the 404", async () => {
    const res = await app.request(`/api/v1/${"p".repeat(12_000)}`);
    const body = await errorOf(res);
    expect(res.status).toBe(404);
    expect(body.message.length).toBeLessThan(300);
  });
});
