// The top level of the OpenAPI document: tags with descriptions, licence and contact from the
// project, public operations marked `security: []`, and links through the RCV asynchronous flow.
import { describe, expect, it } from "vitest";
import packageJson from "../../package.json" with { type: "json" };
import { createApp } from "../../src/app.ts";
import { JobEnvelope } from "../../src/routes/rcv/schema.ts";
import { answerOf, documentOf, type OpenApiDocument, type OpenApiOperation, operationsIn, valueAt } from "../support/answers.ts";
import { postJson, testDeps, tokenFor } from "../support/app.ts";

async function setup() {
  const { deps } = testDeps();
  const app = createApp(() => deps);
  return { app, deps, doc: await documentOf(await app.request("/openapi.json")) };
}

function operations(doc: OpenApiDocument): [string, string, OpenApiOperation][] {
  return operationsIn(doc).map(({ method, path, operation }) => [method, path, operation]);
}

describe("top level of the OpenAPI document", () => {
  it("lists every tag the operations use, once, each with a description", async () => {
    const { doc } = await setup();
    const used = new Set(operations(doc).flatMap(([, , op]) => op.tags ?? []));
    expect(used.size).toBeGreaterThan(10);
    expect(doc.tags?.map((t) => t.name).sort()).toEqual([...used].sort());
    for (const tag of doc.tags ?? []) expect(tag.description, tag.name).toMatch(/\w{3}/);
  });

  it("states the licence and a contact from package.json", async () => {
    const { doc } = await setup();
    const license = (packageJson as { license?: string }).license;
    // Without an SPDX licence in package.json, the LICENSE file's terms under a user-defined SPDX reference.
    expect(doc.info.license).toEqual(
      license && license !== "UNLICENSED"
        ? { name: license, identifier: license }
        : { name: expect.stringMatching(/^UNLICENSED: /), identifier: "LicenseRef-Proprietary" },
    );
    expect(doc.info.contact?.name).toMatch(/\w/);
  });

  it("marks the public operations security: [] and every other one with its scheme", async () => {
    const { doc } = await setup();
    expect(doc.paths?.["/healthz"]?.get?.security).toEqual([]);
    expect(doc.paths?.["/sandbox/v1/credentials"]?.get?.security).toEqual([]);
    for (const [method, path, op] of operations(doc)) {
      expect(Array.isArray(op.security), `${method} ${path}`).toBe(true);
      if (path.startsWith("/api/")) expect(op.security, `${method} ${path}`).toEqual([{ ApiToken: [] }]);
      if (path.startsWith("/admin/")) expect(op.security, `${method} ${path}`).toEqual([{ AdminToken: [] }]);
    }
  });

  it("links solicitar → estado → detalle, and the links work when followed", async () => {
    const { app, deps, doc } = await setup();
    const solicitar = doc.paths?.["/api/v1/sii/rcv/compras/async/solicitar/{receptor}/{periodo}/{dte}/{estado}"]?.post;
    const links = solicitar?.responses?.["200"].links;
    expect(Object.keys(links).sort()).toEqual(["detalle", "estado"]);
    const ids = new Set(operations(doc).map(([, , op]) => op.operationId));
    for (const link of Object.values(links)) expect(ids.has(String(valueAt(link, "operationId")))).toBe(true);
    const ventas =
      doc.paths?.["/api/v1/sii/rcv/ventas/async/estado/{emisor}/{periodo}/{solicitud_id}/{dte}"]?.post?.responses?.["200"].links;
    expect(ventas.detalle.parameters.solicitud_id).toBe("$response.body#/data/solicitud_id");

    // Follow the links as a client would: the runtime expressions against the real answers.
    const token = await tokenFor(deps);
    const body = { auth: { pass: { rut: "76192083-9", clave: "sandbox76" } } };
    const request = { receptor: "76192083-9", periodo: "202405", dte: "33", estado: "REGISTRO" };
    const first = await postJson(app, token.secret, "/api/v1/sii/rcv/compras/async/solicitar/76192083-9/202405/33/REGISTRO", body);
    expect(first.status).toBe(200);
    const answer = await answerOf(first, JobEnvelope);
    const pathOf = (link: { operationId?: string; parameters?: Record<string, unknown> }): string => {
      const target = operations(doc).find(([, , op]) => op.operationId === link.operationId)!;
      return target[1].replace(/\{([^}]+)\}/g, (_m, name: string) => {
        const expr = String(link.parameters?.[name]);
        if (expr === "$response.body#/data/solicitud_id") return String(answer.data.solicitud_id);
        return request[expr.replace("$request.path.", "") as keyof typeof request];
      });
    };
    const estado = await postJson(app, token.secret, pathOf(links.estado), body);
    expect(estado.status).toBe(200);
    expect((await answerOf(estado, JobEnvelope)).data.solicitud_id).toBe(answer.data.solicitud_id);
  });
});
