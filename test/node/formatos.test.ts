// POST /api/v1/platform/dte/formatos/json through the gateway.
import { describe, expect, it } from "vitest";
import { bodyOf, probeApp, tokenFor } from "../support/app.ts";

async function setup() {
  const t = probeApp();
  const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
  const post = (body: unknown) =>
    t.app.request("/api/v1/platform/dte/formatos/json", {
      method: "POST",
      headers: { "x-api-token": token.secret, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  return { ...t, post };
}

describe("normalize to the standard format", () => {
  it("returns the normalized document and what changed, charging 1 unit and contacting no one", async () => {
    const { post, deps } = await setup();
    const res = await post({
      dte: { Encabezado: { IdDoc: { TipoDTE: 33, Folio: 1 } }, Detalle: { NmbItem: "Conectores RJ45", QtyItem: 450, PrcItem: 70 } },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-quota-units")).toBe("1");
    const { data } = await bodyOf(res);
    expect(data.dte.Encabezado.Totales).toEqual({ MntNeto: 31500, TasaIVA: 19, IVA: 5985, MntTotal: 37485 });
    expect(data.dte.Encabezado.IdDoc.FchEmis).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(data.warnings).toContain("Encabezado.Totales.MntTotal = 37485");
    expect(deps.sii.sandbox!.state.calls.size).toBe(0);
  });

  it("answers 400 for a type it does not normalize and 422 for a body without a type", async () => {
    const { post } = await setup();
    const unknown = await post({ dte: { Encabezado: { IdDoc: { TipoDTE: 99 } } } });
    expect(unknown.status).toBe(400);
    expect((await bodyOf(unknown)).errors[0].path).toBe("dte.Encabezado.IdDoc.TipoDTE");
    const missing = await post({ dte: { Encabezado: {} } });
    expect(missing.status).toBe(422);
    expect((await bodyOf(missing)).errors[0].path).toBe("dte.Encabezado.IdDoc");
  });
});
