// Operations that answer JSON or CSV: both media types are declared on their 200, `formato`
// decides when given, and `Accept: text/csv` is honoured when it is not.
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { answerOf, documentOf, operationsIn, SuccessEnvelope } from "../support/answers.ts";
import { postJson, testDeps, tokenFor } from "../support/app.ts";

const company = { auth: { pass: { rut: "76192083-9", clave: "sandbox76" } } };
const detalle = "/api/v1/sii/rcv/compras/detalle/76192083-9/202405/33/REGISTRO";
const bte = "/api/v1/sii/bte/emitidas/resumen/2026";

async function setup() {
  const { deps } = testDeps();
  const app = createApp(() => deps);
  const token = await tokenFor(deps);
  const post = (path: string, accept?: string) => postJson(app, token.secret, path, company, accept ? { accept } : {});
  return { app, post };
}

const type = (res: Response) => res.headers.get("content-type") ?? "";

describe("CSV answers", () => {
  it("declares JSON and text/csv on the 200 of every operation whose formato offers csv", async () => {
    const { app } = await setup();
    const doc = await documentOf(await app.request("/openapi.json"));
    const offering: string[] = [];
    for (const { path, method, operation: op } of operationsIn(doc)) {
      const formato = (op.parameters ?? []).find((p) => "name" in p && p.name === "formato");
      const values = formato && "schema" in formato && formato.schema && "enum" in formato.schema ? formato.schema.enum : [];
      if (!values?.includes("csv")) continue;
      offering.push(`${method} ${path}`);
      expect(Object.keys(op.responses?.["200"].content), path).toEqual(expect.arrayContaining(["application/json", "text/csv"]));
    }
    expect(offering).toEqual(
      expect.arrayContaining([
        "post /api/v1/sii/rcv/compras/detalle/{receptor}/{periodo}/{dte}/{estado}",
        "post /api/v1/sii/rcv/ventas/detalle/{emisor}/{periodo}/{dte}",
        "post /api/v1/sii/bte/emitidas/resumen/{anio}",
      ]),
    );
  });

  it("answers the RCV detail as CSV for Accept: text/csv without formato", async () => {
    const { post } = await setup();
    const csv = await post(detalle, "text/csv");
    expect(csv.status).toBe(200);
    expect(type(csv)).toMatch(/^text\/csv/);
    expect(csv.headers.get("vary")).toMatch(/accept/i);
    expect(await csv.text()).toMatch(/;/);
    const preferred = await post(detalle, "application/json;q=0.5, text/csv");
    expect(type(preferred)).toMatch(/^text\/csv/);
  });

  it("keeps JSON for Accept: application/json, */*, none, and when formato=json is explicit", async () => {
    const { post } = await setup();
    for (const [path, accept] of [
      [detalle, "application/json"],
      [detalle, "*/*"],
      [detalle, undefined],
      [`${detalle}?formato=json`, "text/csv"],
      [detalle, "text/csv;q=0.5, application/json"],
    ] as const) {
      const res = await post(path, accept);
      expect([res.status, type(res)], `${path} ${accept}`).toEqual([200, expect.stringMatching(/^application\/json/)]);
      expect((await answerOf(res, SuccessEnvelope)).success).toBe(true);
    }
    const explicit = await post(`${detalle}?formato=csv`, "application/json");
    expect(type(explicit)).toMatch(/^text\/csv/);
  });

  it("answers the BTE summary as CSV for Accept: text/csv, JSON otherwise", async () => {
    const { post } = await setup();
    const csv = await post(bte, "text/csv");
    expect([csv.status, type(csv)]).toEqual([200, expect.stringMatching(/^text\/csv/)]);
    expect(csv.headers.get("content-disposition")).toContain(".csv");
    const json = await post(bte, "application/json");
    expect(type(json)).toMatch(/^application\/json/);
  });
});
