// The document-driven validators other tests rely on: they must reject what the document rejects
// and accept the app's real answers, or every agreement test built on them proves nothing.
import { describe, expect, it } from "vitest";
import { probeApp, tokenFor } from "../support/app.ts";
import { servedDocument, validatorsFor } from "../support/openapi-schema.ts";

const { app, deps } = probeApp();
const doc = await servedDocument(app);
const v = validatorsFor(doc);

describe("validators built from the served OpenAPI document", () => {
  it("lists the document's operations by operationId", () => {
    expect(v.operations.length).toBeGreaterThan(40);
    expect(v.operations.map((o) => o.operationId)).toContain("get_usage");
  });

  it("checks a real answer against its documented status, and refuses one of another shape", async () => {
    const { secret } = await tokenFor(deps);
    const res = await app.request("/api/v1/usage", { headers: { "x-api-token": secret } });
    expect(res.status).toBe(200);
    const usage = v.forOperation("get_usage");
    const answer = (await res.json()) as Record<string, unknown>;
    expect(usage.response(200, answer).text).toBe("");
    expect(usage.response(200, { ...answer, success: "yes" }).valid).toBe(false);
    const denied = await app.request("/api/v1/usage");
    expect(denied.status).toBe(401);
    expect(usage.response(401, await denied.json()).valid).toBe(true);
  });

  it("reads parameters as text, typed by their schema, and follows component references", () => {
    const uf = v.forOperation("get_sii_indicadores_uf_anual");
    const names = (uf.operation.op.parameters ?? []).length;
    expect(names).toBeGreaterThan(0);
    expect(uf.parameters({ path: { anio: "no-a-year" } }).valid).toBe(false);
    const error = v.schemaAt("#/components/schemas/Error");
    expect(error({}).valid).toBe(false);
  });

  it("rejects a body that is not the documented object", () => {
    const withBody = v.operations.find((o) => o.op.requestBody);
    expect(withBody).toBeDefined();
    const ops = v.forOperation(withBody?.operationId ?? "");
    expect(ops.body("not an object").valid).toBe(false);
  });
});
