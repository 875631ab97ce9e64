// The excerpt a live 502 carries: sii/excerpt.ts redacts with what the API layer says the caller
// sent (platform/caller-data.ts reads the validated body and the path), so sii/ reads no request.
import { Hono } from "hono";
import { validator } from "hono/validator";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/lib/api-error.ts";
import { callerData } from "../../src/platform/caller-data.ts";
import { answerLogFor, recordAnswer, withSiiExcerpt } from "../../src/sii/excerpt.ts";

const CLAVE = "Cl4ve-Canary-2026";
const failed = () =>
  new ApiError(502, "SII_GATEWAY_ERROR", "The SII's answer could not be read", { details: { sii_message: `bad ${CLAVE}` } });

describe("withSiiExcerpt", () => {
  it("adds the last answer, redacted with the caller's secrets, and asks for them only then", () => {
    const request = {};
    let asked = 0;
    const caller = () => {
      asked++;
      return { secrets: [CLAVE], ownRuts: [] };
    };
    expect(withSiiExcerpt(request, caller, failed()).init.details).toEqual({ sii_message: `bad ${CLAVE}` });
    recordAnswer(answerLogFor(request), new Request("https://www4.sii.cl/"), `<p>Error para clave ${CLAVE}</p>`);
    const notRead = new ApiError(400, "VALIDATION_ERROR", "x");
    expect(withSiiExcerpt(request, caller, notRead)).toBe(notRead);
    expect(asked).toBe(0);
    const details = withSiiExcerpt(request, caller, failed()).init.details as Record<string, string>;
    expect(asked).toBe(1);
    expect(details.sii_excerpt).toContain("Error para clave");
    expect(JSON.stringify(details)).not.toContain(CLAVE);
  });
});

describe("callerData", () => {
  it("reads the validated body's clave and certificate secrets and the RUTs of the body and path", async () => {
    const app = new Hono();
    app.post(
      "/x/:rut",
      validator("json", (v) => v),
      (c) => c.json(callerData(c)),
    );
    const body = { auth: { pass: { rut: "11111111-1", clave: CLAVE }, cert: { passphrase: "pp-1", "pfx-data": "" } } };
    const res = await app.request("/x/76192083-9", {
      method: "POST",
      body: JSON.stringify(body),
      headers: { "content-type": "application/json" },
    });
    expect(await res.json()).toEqual({ secrets: [CLAVE, "pp-1"], ownRuts: ["76192083-9", "11111111-1"] });
    const none = new Hono();
    none.get("/y", (c) => c.json(callerData(c)));
    expect(await (await none.request("/y")).json()).toEqual({ secrets: [], ownRuts: [] });
  });
});
