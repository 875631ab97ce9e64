// A body field an operation does not know is refused with 422 naming it (src/platform/unknown-fields.ts),
// on every operation with a JSON body, nested or not, valid rest or not; the SII structures that pass
// their tags through keep doing so; the document closes every request object the same way.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { unknownFields } from "../../src/platform/unknown-fields.ts";
import { ADMIN, probeApp, tokenFor } from "../support/app.ts";
import { documentedOperations, type Json, resolve, servedDocument, validatorsFor } from "../support/openapi-schema.ts";

const t = probeApp();
const doc = await servedDocument(t.app);
const token = (await tokenFor(t.deps)).secret;

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const admin = path.startsWith("/admin/");
  const res = await t.app.request(path, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(admin ? { authorization: `Bearer ${ADMIN}` } : { "x-api-token": token }),
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, answer: (await res.json()) as { message: string; errors?: { path: string; message: string }[] } };
}

const exampleOf = (node: Json): unknown =>
  node?.example ?? (Array.isArray(node?.examples) ? node.examples[0] : Object.values<Json>(node?.examples ?? {})[0]?.value);

const withBody = documentedOperations(doc).filter((o) => o.op.requestBody?.content?.["application/json"]);

describe("unknown body fields", () => {
  it(`every one of the ${withBody.length} operations with a JSON body refuses a field it does not know, naming it`, async () => {
    expect(withBody.length).toBeGreaterThan(30);
    const missed: string[] = [];
    for (const { method, path, op } of withBody) {
      let url = path;
      for (const p of (op.parameters ?? []).map((p: Json) => resolve(doc, p)).filter((p: Json) => p.in === "path")) {
        url = url.replace(`{${p.name}}`, encodeURIComponent(String(exampleOf(p) ?? exampleOf(p.schema))));
      }
      const media = op.requestBody.content["application/json"];
      const example = exampleOf(media) ?? exampleOf(resolve(doc, media.schema)) ?? {};
      const res = await t.app.request(url, {
        method,
        headers: {
          "content-type": "application/json",
          ...(path.startsWith("/admin/") ? { authorization: `Bearer ${ADMIN}` } : { "x-api-token": token }),
        },
        body: JSON.stringify({ ...(example as object), zz_unknown: 1 }),
      });
      const answer = (await res.json()) as { errors?: { path: string; message: string }[] };
      const named = answer.errors?.some((e) => e.path === "zz_unknown" && /^is not a field of this operation/.test(e.message));
      if (res.status !== 422 || !named) missed.push(`${method} ${path}: ${res.status} ${JSON.stringify(answer).slice(0, 200)}`);
    }
    expect(missed).toEqual([]);
  });

  it("a stray field beside its object is named with where it belongs (admin tokens: daily_units under plan)", async () => {
    const { status, answer } = await post("/admin/v1/tokens", { name: "x", account: "acme", scopes: ["sii:read"], daily_units: 20 });
    expect(status).toBe(422);
    expect(answer.message).toBe("The request body has fields this operation does not take: daily_units");
    expect(answer.errors).toEqual([
      { path: "daily_units", location: "body", message: "is not a field of this operation; did you mean plan.daily_units?" },
    ]);
    // Nothing was minted: the account's tokens are those it had.
    const list = await t.app.request("/admin/v1/tokens?account=acme", { headers: { authorization: `Bearer ${ADMIN}` } });
    const tokens = ((await list.json()) as { data: { tokens: { name: string }[] } }).data.tokens;
    expect(tokens.filter((k) => k.name === "x")).toEqual([]);
  });

  it("names nested unknown fields, with the object's own keys or a field of that name in another case, beside the other errors", async () => {
    const { status, answer } = await post("/admin/v1/tokens", {
      name: "x",
      account: "acme",
      scopes: ["sii:read"],
      plan: { daily_units: 20, x: 1 },
    });
    expect(status).toBe(422);
    expect(answer.errors).toEqual([
      { path: "plan.x", location: "body", message: "is not a field of this operation; plan takes daily_units, monthly_units" },
      { path: "plan.monthly_units", location: "body", message: "is required" },
    ]);
    const rcv = await post("/api/v1/sii/rcv/ventas/resumen/76192083-9/202401", {
      auth: { pass: { rut: "76192083-9", clave: "sandbox76", Clave: 1 } },
    });
    expect(rcv.status).toBe(422);
    expect(rcv.answer.errors).toEqual([
      { path: "auth.pass.Clave", location: "body", message: "is not a field of this operation; did you mean auth.pass.clave?" },
    ]);
  });

  it("an operation that takes a certificate only says so to a clave, and one that takes a clave only to a certificate", async () => {
    const caf = await post("/api/v1/sii/dte/caf/solicitar/76192083-9/33/5?dry_run=true", {
      auth: { pass: { rut: "76192083-9", clave: "x" } },
    });
    expect(caf.status).toBe(422);
    expect(caf.answer.errors).toContainEqual({
      path: "auth.pass",
      location: "body",
      message: "this operation takes a certificate only (auth.cert), not a clave",
    });
  });

  it("an empty body is called empty, not malformed", async () => {
    const empty: { body?: string; headers: Record<string, string> }[] = [{ body: "", headers: { "content-length": "0" } }, { headers: {} }];
    for (const init of empty) {
      const res = await t.app.request("/api/v1/sii/rcv/ventas/resumen/76192083-9/202401", {
        method: "POST",
        ...init,
        headers: { "content-type": "application/json", "x-api-token": token, ...init.headers },
      });
      expect(res.status).toBe(422);
      expect(((await res.json()) as { message: string }).message).toBe("The request body is empty: this operation takes a JSON object");
    }
    expect((await post("/api/v1/sii/rcv/ventas/resumen/76192083-9/202401", "{")).answer.message).toBe("The request body is not valid JSON");
  });

  it("the SII's own structures pass their tags through: an IdDoc tag the schema does not list is the engine's to judge", async () => {
    const { status, answer } = await post("/api/v1/platform/dte/formatos/json", {
      dte: { Encabezado: { IdDoc: { TipoDTE: 33, IndServicio: 3 } }, Detalle: [{ NmbItem: "x", QtyItem: 1, PrcItem: 10 }] },
      zz: 1,
    });
    expect(status).toBe(422);
    expect(answer.errors?.map((e) => e.path)).toEqual(["zz"]);
  });

  it("a fault or a recorded answer for a service the simulator does not have is refused, naming service", async () => {
    for (const [path, body] of [
      ["/sandbox/v1/faults", { service: "nope", fault: "maintenance" }],
      ["/sandbox/v1/replays", { service: "nope", status: 200, body: "" }],
    ] as const) {
      const { status, answer } = await post(path, body);
      expect(status).toBe(400);
      expect(answer.errors?.[0]?.path).toBe("service");
      expect(answer.errors?.[0]?.message).toMatch(/^must be a service of the simulator/);
    }
    // An SII host fails every service on it.
    expect((await post("/sandbox/v1/faults", { service: "palena.sii.cl", fault: "maintenance" })).status).toBe(200);
    await t.app.request("/sandbox/v1/faults", { method: "DELETE", headers: { "x-api-token": token } });
  });

  it("the document refuses what the server refuses: a foreign field in any object of each example body, the SII's own structures aside", () => {
    const v = validatorsFor(doc);
    const open: string[] = [];
    let tried = 0;
    for (const { operationId, op } of withBody) {
      const media = op.requestBody.content["application/json"];
      const example = exampleOf(media) ?? exampleOf(resolve(doc, media.schema));
      if (!example || !v.forOperation(operationId).body(example).valid) continue;
      // Each object of the example in turn gets a field of no name the document knows.
      const objects: string[][] = [];
      const collect = (value: unknown, path: string[]) => {
        if (value === null || typeof value !== "object" || path[0] === "dte" || path.includes("documentos")) return;
        if (!Array.isArray(value)) objects.push(path);
        for (const [k, item] of Object.entries(value)) collect(item, [...path, k]);
      };
      collect(example, []);
      for (const path of objects) {
        const copy = structuredClone(example) as Record<string, unknown>;
        const at = path.reduce<Record<string, unknown>>((o, k) => o[k] as Record<string, unknown>, copy);
        at.zz_unknown = 1;
        tried++;
        if (v.forOperation(operationId).body(copy).valid) open.push(`${operationId}: ${path.join(".") || "(body)"}`);
      }
    }
    expect(tried).toBeGreaterThan(50);
    expect(open).toEqual([]);
  });
});

describe("the walk beside the schema", () => {
  const Auth = z.union([z.object({ pass: z.object({ rut: z.string() }) }), z.object({ cert: z.object({ pem: z.string() }) })]);
  const Shape = z.object({
    auth: Auth,
    kind: z.discriminatedUnion("type", [
      z.object({ type: z.literal("a"), a: z.number() }),
      z.object({ type: z.literal("b"), b: z.number() }),
    ]),
    lines: z.array(z.object({ n: z.number() })).optional(),
    tags: z.record(z.string(), z.object({ v: z.number() })).optional(),
    sii: z.object({ TipoDTE: z.number() }).passthrough().optional(),
    when: z.preprocess((v) => v, z.object({ d: z.string() })).optional(),
  });
  const paths = (value: unknown) => unknownFields(Shape, value, 100).map((f) => f.path.join("."));

  it("holds a union to its closest branch, a discriminated one to its tag, lists and records item by item", () => {
    expect(paths({ auth: { pass: { rut: "1", x: 1 } }, kind: { type: "b", b: 1, a: 1 } })).toEqual(["auth.pass.x", "kind.a"]);
    expect(
      paths({ auth: { cert: { pem: "" } }, kind: { type: "a", a: 1 }, lines: [{ n: 1 }, { n: 2, m: 3 }], tags: { k: { v: 1, w: 2 } } }),
    ).toEqual(["lines.1.m", "tags.k.w"]);
  });

  it("lets a passthrough object keep any key, and does not walk what a transform reads", () => {
    expect(paths({ auth: { pass: { rut: "1" } }, kind: { type: "a", a: 1 }, sii: { TipoDTE: 33, Any: 1 }, when: { d: "", e: 1 } })).toEqual(
      [],
    );
  });

  it("stops at its limit", () => {
    const many = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, i]));
    expect(unknownFields(Shape, many, 100)).toHaveLength(100);
  });
});
