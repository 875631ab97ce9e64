// A request for no operation says so before any token is asked for: a wrong method on an
// existing path is 405 with Allow, an unknown path 404, with or without a token.
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { errorOf } from "../support/answers.ts";
import { testDeps, tokenFor } from "../support/app.ts";

const resumen = "/api/v1/sii/rcv/compras/resumen/76192083-9/202405/REGISTRO";

function app() {
  const { deps } = testDeps();
  return { app: createApp(() => deps), deps };
}

describe("wrong method and unknown path", () => {
  it("answers a wrong method with 405, Allow and the error envelope without a token", async () => {
    const res = await app().app.request(resumen, { method: "GET" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    const body = await errorOf(res);
    expect(body).toMatchObject({ success: false, error_code: "HTTP_405" });
    expect(body.request_id).toBe(res.headers.get("x-request-id"));
  });

  it("answers a wrong method with 405 with an invalid token and with a valid one alike", async () => {
    const { app: a, deps } = app();
    const token = await tokenFor(deps, {});
    for (const headers of [{ "x-api-token": "not-a-token" }, { "x-api-token": token.secret }]) {
      const res = await a.request(resumen, { method: "DELETE", headers });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
    }
  });

  it("answers an unknown path under /api with 404 without a token, and still asks for a token on a real one", async () => {
    const a = app().app;
    const unknown = await a.request("/api/v1/sii/nothing/here", { method: "POST" });
    expect(unknown.status).toBe(404);
    expect((await errorOf(unknown)).error_code).toBe("HTTP_404");
    const real = await a.request(resumen, { method: "POST" });
    expect(real.status).toBe(401);
    expect((await errorOf(real)).error_code).toBe("HTTP_401");
  });

  it("serves HEAD where GET is served (no 405)", async () => {
    const res = await app().app.request("/api/v1/usage", { method: "HEAD" });
    expect(res.status).toBe(401);
  });
});
