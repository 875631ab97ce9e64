// The folio ledger's watch (vigilancia_folios): started by a CAF or a threshold, woken by a generar that
// leaves the type at or below its threshold, it writes `folios.low` once per fall and `folios.expiring`
// once per range, asks the SII nothing, and ends when the ledger has no folio left.
import { describe, expect, it } from "vitest";
import { bytesToBase64 } from "../../src/lib/encoding.ts";
import { encodeLatin1 } from "../../src/lib/latin1.ts";
import type { JobQueue } from "../../src/ports/jobs.ts";
import { EXAMPLE_CAF, EXAMPLE_EXEMPT_INVOICE } from "../../src/routes/example-documents.ts";
import { EventsPage, JobsPage } from "../../src/routes/jobs/schema.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { buildCaf } from "../../src/sandbox/folios-caf.ts";
import { WATCH_EVERY_MS } from "../../src/services/folio-watch-step.ts";
import { runDueJobs } from "../../src/services/job-runner.ts";
import { answerOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const COMPANY = "76192083-9";
const LEDGER = `/api/v1/platform/dte/folios/${COMPANY}/34`;
const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
const cert = { "cert-data": juana.certPem, "pkey-data": juana.keyPem };
const DAY = 24 * 60 * 60 * 1000;

/** `count` copies of the example exempt invoice without a Folio: the ledger gives them theirs. */
function invoices(count: number) {
  const { Folio: _folio, ...idDoc } = EXAMPLE_EXEMPT_INVOICE.Encabezado.IdDoc;
  return Array.from({ length: count }, () => ({
    ...EXAMPLE_EXEMPT_INVOICE,
    Encabezado: { ...EXAMPLE_EXEMPT_INVOICE.Encabezado, IdDoc: idDoc },
  }));
}

async function setup() {
  const t = probeApp();
  const token = await tokenFor(t.deps, { plan: { daily_units: 10_000, monthly_units: 100_000 } });
  const headers = { "x-api-token": token.secret, "content-type": "application/json" };
  const post = (path: string, body: unknown) => postJson(t.app, token.secret, path, body);
  const generar = (count: number) =>
    post("/api/v1/platform/dte/documentos/generar", {
      auth: { cert },
      dte: invoices(count),
      resolucion: { fecha: "2014-08-22", numero: 80 },
    });
  const umbral = (value: number | null) =>
    t.app.request(`${LEDGER}/umbral`, { method: "PUT", headers, body: JSON.stringify({ umbral: value }) });
  const run = () => runDueJobs(t.deps.jobs as unknown as JobQueue, t.deps);
  const later = (ms: number) => t.deps.sii.sandbox!.advanceClock(ms);
  const events = async () => (await answerOf(await t.app.request("/api/v1/events", { headers }), EventsPage)).data.events;
  const watches = async () =>
    (await answerOf(await t.app.request("/api/v1/jobs", { headers }), JobsPage)).data.jobs.filter((j) => j.tipo === "vigilancia_folios");
  return { ...t, post, generar, umbral, run, later, events, watches };
}

describe("the folio ledger's watch", () => {
  it("warns folios.low once when generar takes the type to its threshold, and again only after a CAF lifted it", async () => {
    const { post, generar, umbral, run, events, watches, deps } = await setup();
    expect((await post(LEDGER, { caf: EXAMPLE_CAF })).status).toBe(200); // folios 1–100
    expect((await umbral(94)).status).toBe(200);
    const [watch] = await watches();
    expect(watch).toMatchObject({ estado: "pendiente", folios: { emisor: COMPANY, dte: 34 }, envio: null, estado_sii: null });
    await run();
    expect(await events()).toEqual([]); // 100 left, above 94

    expect((await generar(5)).headers.get("x-folios-low")).toBeNull(); // 95 left: above the threshold…
    expect((await generar(1)).headers.get("x-folios-low")).toBe("true"); // …94: at it
    expect((await run()).ran).toBe(1); // woken by the generar, not six hours later
    await generar(1);
    await run(); // still low: nothing new to tell
    const low = await events();
    expect(low.map((e) => [e.type, e.data])).toEqual([
      ["folios.low", { emisor: COMPANY, dte: 34, disponibles: expect.any(Number), umbral: 94, job_id: watch!.id }],
    ]);
    expect(low[0]!.data.disponibles).toBeLessThanOrEqual(94);

    // A second CAF lifts the type above its threshold; the next fall warns again.
    const more = await buildCaf({
      rut: COMPANY,
      razonSocial: "COMERCIAL SANDBOX SPA",
      tipo: 34,
      desde: 101,
      hasta: 110,
      fecha: "2026-11-25",
    });
    expect((await post(LEDGER, { caf: bytesToBase64(encodeLatin1(more)) })).status).toBe(200);
    await run();
    await generar(10);
    await run();
    expect((await events()).map((e) => e.type)).toEqual(["folios.low", "folios.low"]);
    // One watch throughout, and the SII was asked nothing by it.
    expect((await watches()).map((w) => w.id)).toEqual([watch!.id]);
    expect(deps.sii.sandbox!.calls().get("envio_status")).toBeUndefined();
  });

  it("warns folios.expiring once per range within 30 days of its vence, on its own schedule", async () => {
    const { post, run, later, events, deps } = await setup();
    const today = deps.clock.now();
    const authorized = new Date(today.getTime() - 4 * 30 * DAY).toISOString().slice(0, 10); // good for six months
    const caf = await buildCaf({ rut: COMPANY, razonSocial: "COMERCIAL SANDBOX SPA", tipo: 33, desde: 1, hasta: 10, fecha: authorized });
    const added = await post(`/api/v1/platform/dte/folios/${COMPANY}/33`, { caf: bytesToBase64(encodeLatin1(caf)) });
    expect(added.status).toBe(200);
    await run();
    expect(await events()).toEqual([]);
    later(40 * DAY); // now within 30 days of the range's vence
    await run();
    later(WATCH_EVERY_MS + 1_000);
    await run();
    const expiring = await events();
    expect(expiring.map((e) => [e.type, e.data.desde, e.data.hasta, e.data.disponibles])).toEqual([["folios.expiring", 1, 10, 10]]);
    expect(expiring[0]!.data.vence).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("ends when the ledger has no folio left; the next CAF starts another", async () => {
    const { post, generar, run, watches } = await setup();
    const small = await buildCaf({ rut: COMPANY, razonSocial: "COMERCIAL SANDBOX SPA", tipo: 34, desde: 1, hasta: 2, fecha: "2026-11-25" });
    await post(LEDGER, { caf: bytesToBase64(encodeLatin1(small)) });
    await generar(2);
    await run();
    const [ended] = await watches();
    expect(ended).toMatchObject({ estado: "completado", next_run_at: null });
    const next = await buildCaf({ rut: COMPANY, razonSocial: "COMERCIAL SANDBOX SPA", tipo: 34, desde: 3, hasta: 4, fecha: "2026-11-25" });
    await post(LEDGER, { caf: bytesToBase64(encodeLatin1(next)) });
    const all = await watches();
    expect(all.map((w) => w.estado)).toEqual(["pendiente", "completado"]);
  });
});
