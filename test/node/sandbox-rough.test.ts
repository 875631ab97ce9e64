// The rough sandbox (src/sandbox/rough.ts): each fault it schedules is one the gateway absorbs. Each
// test sets its own schedule (one kind of fault at odds 1), so it proves the same in `npm test` and in
// `npm run test:rough`.
import { describe, expect, it } from "vitest";
import { decodeLatin1, encodeLatin1 } from "../../src/lib/latin1.ts";
import { Granted } from "../../src/routes/caf/solicitar.ts";
import { Data } from "../../src/routes/contribuyentes/datos.ts";
import { Status } from "../../src/routes/envios/estado.ts";
import { Uf } from "../../src/routes/indicadores/uf.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { parseRoughSeed, type RoughOdds, RoughSchedule } from "../../src/sandbox/rough.ts";
import { sandboxTransport, simulatorOf } from "../../src/sandbox/transport.ts";
import { answerOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const juana = {
  auth: { cert: { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem } },
};
const NONE: RoughOdds = { expire: 0, transient: 0, quirk: 0 };

async function setup(odds: Partial<RoughOdds>, seed = 7) {
  const t = probeApp();
  const token = await tokenFor(t.deps, { plan: { daily_units: 10_000, monthly_units: 100_000 } });
  const sandbox = simulatorOf(t.deps.sii);
  const rough = new RoughSchedule(seed, { ...NONE, ...odds });
  sandbox.state.rough = rough;
  const post = (path: string, body: unknown = juana) => postJson(t.app, token.secret, path, body);
  const get = (path: string) => t.app.request(path, { headers: { "x-api-token": token.secret } });
  const calls = (service: string) => sandbox.state.calls.get(service) ?? 0;
  return { post, get, calls, rough, sandbox };
}

describe("the rough sandbox", () => {
  it("drops a web session early and the gateway logs in again transparently, once", async () => {
    const { post, calls, rough } = await setup({ expire: 1 });
    const first = await post("/api/v1/sii/dte/contribuyentes/datos/76192083-9");
    expect(first.status).toBe(200);
    // The session dropped at misii_carta: one more login and one more page, then the answer.
    expect(rough.events).toEqual([{ kind: "session_expired", service: "misii_carta", rut: "76192083-9" }]);
    expect([calls("cert_login") > 0, calls("misii_carta")]).toEqual([true, 2]);
    const logins = calls("cert_login");
    // The new session is not dropped again within the cooldown: the next call reuses it.
    const second = await post("/api/v1/sii/dte/contribuyentes/datos/76192083-9");
    expect(second.status).toBe(200);
    expect((await answerOf(second, Data)).data).toEqual((await answerOf(first, Data)).data);
    expect([calls("cert_login"), calls("misii_carta"), rough.events.length]).toEqual([logins, 3, 1]);
  });

  it("answers QueryEstUp -11 once and the gateway asks again (a read), reporting the envelope", async () => {
    const { post, calls, rough } = await setup({ transient: 1 });
    const res = await post("/api/v1/platform/dte/envios/estado/76192083-9/0260000001");
    expect(res.status).toBe(200);
    expect((await answerOf(res, Status)).data).toMatchObject({ track_id: "0260000001", estado: "EPR", resultado: "aceptado" });
    expect(rough.events.filter((e) => e.service === "envio_status")).toEqual([
      { kind: "transient", service: "envio_status", answer: "-11" },
    ]);
    expect(calls("envio_status")).toBe(2);
  });

  it("answers DTE-OFGA on the CAF download and the gateway downloads again, stamping once", async () => {
    const { post, calls, rough } = await setup({ transient: 1 });
    const res = await post("/api/v1/sii/dte/caf/solicitar/76192083-9/33/5");
    const { data } = await answerOf(res, Granted);
    expect([res.status, data.folio_inicial, data.folio_final, data.reobtenido]).toEqual([200, 101, 105, false]);
    expect(rough.events).toContainEqual({ kind: "transient", service: "caf_download", answer: "DTE-OFGA" });
    expect([calls("caf_generate"), calls("caf_download"), calls("caf_reobtain")]).toEqual([1, 2, 0]);
  });

  it("gives pages with the captured answers' quirks, and the gateway reads them the same", async () => {
    const at = new Date("2026-03-20T12:00:00Z");
    const path = "/api/v1/sii/indicadores/uf/anual/2025/3/15";
    const tidy = await setup({});
    const expected = await answerOf(await tidy.get(path), Uf);
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const t = probeApp();
      t.deps.clock = { now: () => at };
      t.deps.sii = sandboxTransport(createDefaultSandbox({ now: () => at.getTime(), roughSeed: null }));
      simulatorOf(t.deps.sii).state.rough = new RoughSchedule(seed, { ...NONE, quirk: 1 });
      const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
      const res = await t.app.request(path, { headers: { "x-api-token": token.secret } });
      expect(res.status).toBe(200);
      expect((await answerOf(res, Uf)).data.fecha).toBe(expected.data.fecha);
      expect(simulatorOf(t.deps.sii).state.rough?.events).toHaveLength(1);
    }
  });

  it("changes a page as the quirk says: no closing tags, trailing bytes, no charset", async () => {
    const seen = new Set<string>();
    for (let seed = 1; seen.size < 3 && seed < 50; seed++) {
      const rough = new RoughSchedule(seed, { ...NONE, quirk: 1 });
      const res = await rough.quirk(
        "indicadores",
        new Response(encodeLatin1("<html><body>Año</body></html>"), { headers: { "content-type": "text/html; charset=ISO-8859-1" } }),
      );
      const event = rough.events[0];
      if (event?.kind !== "quirk") throw new Error("no quirk scheduled");
      seen.add(event.quirk);
      const text = decodeLatin1(new Uint8Array(await res.arrayBuffer()));
      if (event.quirk === "no_closing_html") expect(text).toBe("<html><body>Año");
      if (event.quirk === "trailing_bytes") expect(text).toBe("<html><body>Año</body></html>\r\n\r\n\n");
      if (event.quirk === "no_charset") expect(res.headers.get("content-type")).toBe("text/html");
    }
    expect([...seen].sort()).toEqual(["no_charset", "no_closing_html", "trailing_bytes"]);
  });

  it("reproduces the same schedule from the same seed, and another from another", async () => {
    const run = async (seed: number) => {
      const { post, rough } = await setup({ expire: 0.5, transient: 0.5, quirk: 0.5 }, seed);
      for (let i = 0; i < 3; i++) await post("/api/v1/sii/dte/contribuyentes/datos/76192083-9");
      await post("/api/v1/platform/dte/envios/estado/76192083-9/0260000001");
      return rough.events;
    };
    const once = await run(41);
    expect(once.length).toBeGreaterThan(0);
    expect(await run(41)).toEqual(once);
    const others = await Promise.all([42, 43, 44].map(run));
    expect(others.some((events) => JSON.stringify(events) !== JSON.stringify(once))).toBe(true);
  });

  it("reads SANDBOX_ROUGH_SEED as a whole number, null when unset, and refuses anything else by name", () => {
    expect([parseRoughSeed(undefined), parseRoughSeed(""), parseRoughSeed("12345")]).toEqual([null, null, 12345]);
    expect(() => parseRoughSeed("abc")).toThrow(/SANDBOX_ROUGH_SEED must be a whole number/);
  });

  it("is off unless a seed is given: a sandbox made with roughSeed null is tidy", () => {
    expect(createDefaultSandbox({ roughSeed: null }).state.rough).toBeNull();
    expect(createDefaultSandbox({ roughSeed: 9 }).state.rough?.seed).toBe(9);
  });
});
