// POST/DELETE /sandbox/v1/replays: a recorded SII answer given instead of the simulator's own.
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { bytesToBase64 } from "../../src/lib/encoding.ts";
import { decodeLatin1, encodeLatin1 } from "../../src/lib/latin1.ts";
import { Uf } from "../../src/routes/indicadores/uf.ts";
import { MAX_REPLAY_BODY_BYTES, Replays } from "../../src/routes/sandbox/schema.ts";
import { sandboxUf, siiDecimal, ufYearPage } from "../../src/sandbox/indicadores.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { liveTransport } from "../../src/sii/transport.ts";
import { answerOf, documentOf, errorOf, valueAt } from "../support/answers.ts";
import { testDeps, tokenFor } from "../support/app.ts";

const json = { "content-type": "application/json" };
const UF_2025 = "https://www.sii.cl/valores_y_fechas/uf/uf2025.htm";

function sandboxApp() {
  const { deps } = testDeps();
  const app = createApp(() => deps);
  const replay = (body: unknown) => app.request("/sandbox/v1/replays", { method: "POST", headers: json, body: JSON.stringify(body) });
  const siiGet = async (url: string) => simulatorOf(deps.sii).fetch(new Request(url));
  return { app, deps, replay, siiGet };
}

/** The simulator's own 2025 UF page with the value of 15 March changed to 12.345,67. */
async function alteredUfPage(): Promise<Uint8Array> {
  const page = decodeLatin1(new Uint8Array(await ufYearPage(2025, new Date("2026-03-20T12:00:00Z")).arrayBuffer()));
  const march15 = siiDecimal(sandboxUf(new Date(Date.UTC(2025, 2, 15))));
  expect(page.split(march15)).toHaveLength(2);
  return encodeLatin1(page.replace(march15, "12.345,67"));
}

describe("sandbox replays", () => {
  it("gives the recorded answer to the gateway's reader, which answers what it makes of it", async () => {
    const { app, deps, replay } = sandboxApp();
    const body = bytesToBase64(await alteredUfPage());
    const added = await replay({ service: "indicadores", status: 200, headers: { "Content-Type": "text/html; charset=ISO-8859-1" }, body });
    expect(added.status).toBe(200);
    expect((await answerOf(added, Replays)).data.replays).toEqual([
      { service: "indicadores", status: 200, bytes: expect.any(Number), remaining: 1 },
    ]);
    const { secret } = await tokenFor(deps, { scopes: ["sii:read"] });
    const res = await app.request("/api/v1/sii/indicadores/uf/anual/2025/3/15", { headers: { "x-api-token": secret } });
    expect(res.status).toBe(200);
    expect((await answerOf(res, Uf)).data).toEqual({ fecha: "2025-03-15", valor: 12345.67 });
    expect((await answerOf(await app.request("/sandbox/v1/replays", { method: "DELETE" }), Replays)).data.replays).toEqual([]);
  });

  it("answers exactly the status, headers and bytes given, for `count` calls, then the simulator's own", async () => {
    const { replay, siiGet, deps } = sandboxApp();
    const bytes = new Uint8Array([0x3c, 0x70, 0x3e, 0xf1, 0x00, 0xff, 0x3c, 0x2f, 0x70, 0x3e]);
    const input = { service: "indicadores", status: 503, headers: { "content-type": "text/plain", "x-from": "bug report" }, count: 2 };
    expect((await replay({ ...input, body: bytesToBase64(bytes) })).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const res = await siiGet(UF_2025);
      expect(res.status).toBe(503);
      expect(res.headers.get("content-type")).toBe("text/plain");
      expect(res.headers.get("x-from")).toBe("bug report");
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
    }
    const own = await siiGet(UF_2025);
    expect(own.status).toBe(200);
    expect(await own.text()).toContain("mes_enero");
    // Replayed calls are counted like any other.
    expect(deps.sii.sandbox?.calls().get("indicadores")).toBe(3);
  });

  it("DELETE drops the answers not yet given", async () => {
    const { app, replay, siiGet } = sandboxApp();
    await replay({ service: "indicadores", status: 200, body: bytesToBase64(new TextEncoder().encode("replayed")), count: 5 });
    expect((await siiGet(UF_2025)).status).toBe(200);
    const cleared = await app.request("/sandbox/v1/replays", { method: "DELETE" });
    expect((await answerOf(cleared, Replays)).data.replays).toEqual([]);
    expect(await (await siiGet(UF_2025)).text()).toContain("mes_enero");
  });

  it("refuses an unknown service naming `service` and listing the simulator's services", async () => {
    const { replay } = sandboxApp();
    const res = await replay({ service: "uf", status: 200, body: "" });
    expect(res.status).toBe(400);
    const body = await errorOf(res);
    expect(body.error_code).toBe("VALIDATION_ERROR");
    expect(body.errors).toHaveLength(1);
    expect(body.errors?.[0]?.path).toBe("service");
    for (const name of ["indicadores", "bte_report", "rcv_detalle", "clave_login", "certification_progress"]) {
      expect(body.errors?.[0]?.message).toContain(name);
    }
  });

  it("refuses a body that is not base64, and a count or status out of range (422), naming each field", async () => {
    const { replay } = sandboxApp();
    for (const body of ["not base64!", "QUJD=", "QUJDRA"]) {
      const res = await replay({ service: "indicadores", status: 200, body });
      expect(res.status, body).toBe(422);
      expect((await errorOf(res)).errors?.map((e: { path: string }) => e.path)).toEqual(["body"]);
    }
    const res = await replay({ service: "indicadores", status: 99, body: "", count: 101 });
    expect(res.status).toBe(422);
    expect((await errorOf(res)).errors?.map((e: { path: string }) => e.path).sort()).toEqual(["count", "status"]);
    expect((await replay({ service: "indicadores", status: 200, body: "", count: 0 })).status).toBe(422);
    const broken = await replay({ service: "indicadores", status: 200, body: "", headers: { "x-a": "one\r\nset-cookie: x" } });
    expect(broken.status).toBe(422);
    expect((await errorOf(broken)).errors?.[0]?.path).toBe("headers.x-a");
    const twice = await replay({
      service: "indicadores",
      status: 200,
      body: "",
      headers: { "Content-Type": "a/b", "content-type": "c/d" },
    });
    expect([twice.status, (await errorOf(twice)).errors?.[0]?.path]).toEqual([400, "headers"]);
    const noContent = await replay({ service: "indicadores", status: 204, body: "QUJD" });
    expect([noContent.status, (await errorOf(noContent)).errors?.[0]?.path]).toEqual([400, ""]);
  });

  it("documents its bounds: the body up to the largest SII answer the gateway reads, count up to 100", async () => {
    const { app } = sandboxApp();
    const doc = await documentOf(await app.request("/openapi.json"));
    const schema = doc.components?.schemas?.SandboxReplay;
    expect(valueAt(schema, "properties", "body", "maxLength")).toBe(Math.ceil(MAX_REPLAY_BODY_BYTES / 3) * 4);
    expect(valueAt(schema, "properties", "count", "maximum")).toBe(100);
    expect(valueAt(schema, "properties", "count", "minimum")).toBe(1);
  });

  it("does not exist in live mode", async () => {
    const { deps } = testDeps(undefined, { upstream: "live" });
    deps.sii = liveTransport(async () => new Response("unreachable", { status: 599 }));
    const app = createApp(() => deps);
    for (const method of ["POST", "DELETE"]) {
      const res = await app.request("/sandbox/v1/replays", {
        method,
        headers: json,
        body: method === "POST" ? '{"service":"indicadores","status":200,"body":""}' : undefined,
      });
      expect(res.status, method).toBe(404);
    }
  });
});
