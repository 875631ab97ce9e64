// One kind of error, one answer: a malformed body is 422, a business rule (a malformed e-mail
// among them) 400 wherever the value sits, and every errors[].path is written one way:
// fields dotted, array indexes in brackets (`documentos[0].dte`).
import { createRoute, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { ok } from "../../src/platform/envelope.ts";
import { envelope } from "../../src/platform/schemas.ts";
import { businessRule, emailAddress, fieldPath } from "../../src/platform/validation.ts";
import { EXAMPLE_PFX } from "../../src/routes/example-credentials.ts";
import { answerOf, documentOf, type ErrorAnswer, errorOf } from "../support/answers.ts";
import { postJson, testDeps, tokenFor } from "../support/app.ts";

/** `a.b[0].c-d`: names dotted, indexes bracketed, never a bare numeric segment. */
const NOTATION = /^[A-Za-z_][\w-]*(\[\d+\])*(\.[A-Za-z_][\w-]*(\[\d+\])*)*$/;

async function setup() {
  const { deps } = testDeps();
  const app = createApp(() => deps);
  const token = await tokenFor(deps);
  return { app, deps, post: (path: string, body: unknown) => postJson(app, token.secret, path, body) };
}

const company = { pass: { rut: "76192083-9", clave: "sandbox76" } };

function expectNotation(errors: ErrorAnswer["errors"]): void {
  expect(errors?.length).toBeGreaterThan(0);
  for (const error of errors ?? []) expect(error.path, JSON.stringify(error)).toMatch(NOTATION);
}

describe("error paths", () => {
  it("writes fields dotted and indexes in brackets", () => {
    expect(fieldPath(["documentos", 0, "dte"])).toBe("documentos[0].dte");
    expect(fieldPath("dias", 3, "folio_final")).toBe("dias[3].folio_final");
    expect(fieldPath(["auth", "cert", "cert-data"])).toBe("auth.cert.cert-data");
    expect(fieldPath(["dte", 1, "Detalle", 0, "MontoItem"])).toBe("dte[1].Detalle[0].MontoItem");
    expect(fieldPath([])).toBe("");
  });

  it("names each field of an invalid batch in the one notation, schema and after-schema checks alike", async () => {
    const { post } = await setup();
    const schema = await post("/api/v1/platform/dte/intercambios/respuesta_sii", {
      auth: {},
      documentos: [
        { emisor: "77123456-9", dte: 33, folio: 1001, accion: "ACD" },
        { emisor: "not a rut", dte: 33, folio: -1, accion: "NOPE" },
      ],
    });
    expect(schema.status).toBe(422);
    const schemaErrors = (await errorOf(schema)).errors;
    expectNotation(schemaErrors);
    expect(schemaErrors?.map((e) => e.path)).toContain("documentos[1].emisor");

    // A check made after the schema (totals) writes its paths the same way.
    const resumen = { tipo_documento: 39, documentos: 1, monto_exento: 0, monto_neto: 84, monto_iva: 16, monto_total: 100 };
    const totals = await post("/api/v1/sii/rcv/ventas/set_resumen/76192083-9/202401?dry_run=true", {
      auth: company,
      resumenes: [resumen, { ...resumen, tipo_documento: 41, monto_total: 5 }],
    });
    const body = await errorOf(totals);
    expect(totals.status, JSON.stringify(body)).toBe(400);
    expectNotation(body.errors);
    expect(body.errors?.map((e) => e.path)).toEqual(["resumenes[1].monto_total"]);
  });

  it("writes the handler's own checks (duplicates, days of the period) in the same notation", async () => {
    const { post } = await setup();
    const resumen = { tipo_documento: 39, documentos: 1, monto_exento: 0, monto_neto: 84, monto_iva: 16, monto_total: 100 };
    const handler = [
      await post("/api/v1/sii/rcv/ventas/set_resumen/76192083-9/202401?dry_run=true", {
        auth: company,
        resumenes: [resumen, { ...resumen, monto_total: 5 }, resumen],
      }),
      await post("/api/v1/sii/rcv/ventas/set_boletas_diarias/76192083-9/202402/39?dry_run=true", {
        auth: company,
        dias: [
          { dia: 30, folio_inicial: 1, folio_final: 10, documentos: 10, monto_exento: 0, monto_neto: 84, monto_iva: 16, monto_total: 100 },
          { dia: 2, folio_inicial: 10, folio_final: 1, documentos: 1, monto_exento: 0, monto_neto: 84, monto_iva: 16, monto_total: 100 },
        ],
      }),
    ];
    const paths: string[] = [];
    for (const res of handler) {
      const body = await errorOf(res);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expectNotation(body.errors);
      paths.push(...(body.errors ?? []).map((e) => e.path));
    }
    expect(paths).toEqual(
      expect.arrayContaining(["resumenes[1].monto_total", "resumenes[2].tipo_documento", "dias[0].dia", "dias[1].folio_final"]),
    );
  });
});

describe("one status per kind of error", () => {
  it("answers a malformed e-mail with 400 on every operation that takes one, a missing one with 422", async () => {
    const { post } = await setup();
    const bhe = await post("/api/v1/sii/bhe/emitidas/email/222222220000041F99ED", {
      auth: { pass: { rut: "22222222-2", clave: "sandbox22" } },
      destinatario: { email: "not-an-email" },
    });
    const postular = await post("/api/v1/sii/certificacion/facturas/postular/76192083-9?dry_run=true", {
      auth: { cert: EXAMPLE_PFX },
      email: "not-an-email",
      software: "Facturador propio",
      documentos: [33],
    });
    for (const [res, path] of [
      [bhe, "destinatario.email"],
      [postular, "email"],
    ] as const) {
      const body = await errorOf(res);
      expect([res.status, body.error_code], JSON.stringify(body)).toEqual([400, "VALIDATION_ERROR"]);
      expect(body.errors?.map((e) => e.path)).toContain(path);
    }
    const missing = await post("/api/v1/sii/bhe/emitidas/email/222222220000041F99ED", {
      auth: { pass: { rut: "22222222-2", clave: "sandbox22" } },
      destinatario: {},
    });
    expect(missing.status).toBe(422);
  });

  it("answers a body whose only problems are business rules with 400, and one with any malformed part with 422", async () => {
    const { app, deps } = await setup();
    const Body = z.object({
      email: emailAddress(),
      desde: z.number().int(),
      hasta: z
        .number()
        .int()
        .refine((n) => n < 1000, businessRule("at most 999")),
    });
    app.openapi(
      createRoute({
        method: "post",
        path: "/api/v1/test/rules",
        request: { body: { content: { "application/json": { schema: Body } } } },
        responses: { 200: { description: "ok" } },
      }),
      (c) => ok(c, c.req.valid("json")),
    );
    const token = await tokenFor(deps);
    const send = (body: unknown) => postJson(app, token.secret, "/api/v1/test/rules", body);
    const rules = await send({ email: "a@@b", desde: 1, hasta: 5000 });
    expect(rules.status).toBe(400);
    expect((await errorOf(rules)).errors?.map((e) => e.path)).toEqual(["email", "hasta"]);
    const mixed = await send({ email: "a@@b", desde: "one", hasta: 5 });
    expect(mixed.status).toBe(422);
    const fine = await send({ email: " pagos@cliente.cl ", desde: 1, hasta: 5 });
    expect(fine.status).toBe(200);
    expect((await answerOf(fine, envelope(Body))).data.email).toBe("pagos@cliente.cl");
  });

  it("states the rule in the document's 400 and 422 descriptions", async () => {
    const { app } = await setup();
    const doc = await documentOf(await app.request("/openapi.json"));
    const responses = doc.paths?.["/api/v1/sii/bhe/emitidas/email/{codigo}"]?.post?.responses ?? {};
    expect(responses["400"].description).toMatch(/business rule/i);
    expect(responses["422"].description).toMatch(/schema/i);
  });
});
