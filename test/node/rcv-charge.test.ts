// The RCV details are charged by the documents they read: per started block of rows, counted
// before any row is read (the synchronous detail by the period's summary, the asynchronous file by
// the count its download request declares), so X-Quota-Units is the whole charge and a caller
// who cannot pay gets 429 before the rows are fetched.
import { describe, expect, it } from "vitest";
import type { SiiTransport } from "../../src/ports/transport.ts";
import { Detail, FileEnvelope, JobEnvelope } from "../../src/routes/rcv/schema.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { ASYNC_STEP_MS, rcvDocuments } from "../../src/sandbox/rcv.ts";
import { sandboxTransport, simulatorOf } from "../../src/sandbox/transport.ts";
import { DETAIL_BLOCK_ROWS, FILE_BLOCK_ROWS, LOOKUP_BLOCK_ROWS, lookupUnits, rowUnits } from "../../src/services/rcv-charge.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const COMPANY = "76192083-9";
const company = { auth: { pass: { rut: COMPANY, clave: "sandbox76" } } };
/** The sales of type 33 of a period, as the sandbox has them. */
const sales33 = (periodo: number) => rcvDocuments(COMPANY, periodo, "VENTA").filter((d) => d.tipo === 33);

/** The sandbox, with each getResumen answer passed through `summary` first. */
function withSummary(summary: (answer: Record<string, unknown>) => Record<string, unknown> = (a) => a) {
  // Tidy: the summary is rewritten as JSON, and the tests count the SII's reads exactly.
  const sandbox = sandboxTransport(createDefaultSandbox({ now: () => Date.parse("2026-11-22T15:00:00Z"), roughSeed: null }));
  const transport: SiiTransport = {
    ...sandbox,
    fetch: async (request, options) => {
      const res = await sandbox.fetch(request, options);
      if (!new URL(request.url).pathname.endsWith("/getResumen")) return res;
      return new Response(JSON.stringify(summary(await res.json())), { status: res.status, headers: res.headers });
    },
  };
  return { transport, calls: simulatorOf(sandbox).state.calls };
}

/** The summary counting one document of type 33 fewer than the detail brings. */
const undercounted = (answer: Record<string, unknown>) => {
  for (const row of answer.data as Record<string, number>[]) if (row.rsmnTipoDocInteger === 33) row.rsmnTotDoc = (row.rsmnTotDoc ?? 0) - 1;
  if (typeof answer.totDocRes === "number") answer.totDocRes -= 1;
  return answer;
};

async function setup(plan?: { daily_units: number; monthly_units: number }, sii = withSummary()) {
  const t = probeApp();
  t.deps.clock = { now: () => new Date("2026-11-22T15:00:00Z") };
  t.deps.sii = sii.transport;
  const token = await tokenFor(t.deps, { scopes: ["sii:read"], ...(plan ? { plan } : {}) });
  const post = (path: string) => postJson(t.app, token.secret, path, company);
  return { post, calls: sii.calls };
}

describe("the synchronous RCV detail, charged by the documents its summary counts", () => {
  it("costs the weight for a small type and the weight per started block of documents for a large one", async () => {
    const { post } = await setup();
    const small = await post(`/api/v1/sii/rcv/ventas/detalle/${COMPANY}/202401/33`);
    expect([small.status, small.headers.get("x-quota-units")]).toEqual([200, "2"]);
    expect((await answerOf(small, Detail)).data.registros).toBe(sales33(202401).length);
    const documents = sales33(201902).length;
    expect(documents).toBeGreaterThan(4 * DETAIL_BLOCK_ROWS);
    const large = await post(`/api/v1/sii/rcv/ventas/detalle/${COMPANY}/201902/33`);
    const units = String(2 * Math.ceil(documents / DETAIL_BLOCK_ROWS));
    expect([large.status, large.headers.get("x-quota-units")]).toEqual([200, units]);
    expect((await answerOf(large, Detail)).data.registros).toBe(documents);
    expect([rowUnits(0, 500), rowUnits(500, 500), rowUnits(501, 500), rowUnits(10_000, 500)]).toEqual([2, 2, 4, 40]);
  }, 30_000);

  it("charges formato=csv the same, by the summary's count of the type", async () => {
    const { post } = await setup();
    const res = await post(`/api/v1/sii/rcv/ventas/detalle/${COMPANY}/201902/33?formato=csv`);
    expect([res.status, res.headers.get("x-quota-units")]).toEqual([
      200,
      String(2 * Math.ceil(sales33(201902).length / DETAIL_BLOCK_ROWS)),
    ]);
    await res.arrayBuffer();
  }, 30_000);

  it.each(["", "?formato=csv"])(
    "answers 429 before the detail is read when the plan cannot pay for its documents, charging the summary's read (%s)",
    async (query) => {
      const { post, calls } = await setup({ daily_units: 3, monthly_units: 100 });
      const res = await post(`/api/v1/sii/rcv/ventas/detalle/${COMPANY}/201902/33${query}`);
      const error = await errorOf(res);
      const beyond = 2 * Math.ceil(sales33(201902).length / DETAIL_BLOCK_ROWS) - 2;
      expect([res.status, error.error_code, error.details?.units_needed]).toEqual([429, "QUOTA_EXCEEDED", beyond]);
      // The summary was read (and the weight stays charged for it); the detail and its export were not.
      expect(res.headers.get("x-quota-units")).toBe("2");
      expect([calls.get("rcv_resumen"), calls.get("rcv_detalle"), calls.get("rcv_export")]).toEqual([1, undefined, undefined]);
    },
  );

  it("refuses a detail with more documents than its summary counts (502 SII_FORMAT_CHANGED), for JSON and CSV", async () => {
    const { post } = await setup(undefined, withSummary(undercounted));
    for (const path of [
      `/api/v1/sii/rcv/ventas/detalle/${COMPANY}/202401/33`,
      `/api/v1/sii/rcv/ventas/detalle/${COMPANY}/202401/33?formato=csv`,
    ]) {
      const res = await post(path);
      const error = await errorOf(res);
      expect([res.status, error.error_code]).toEqual([502, "SII_FORMAT_CHANGED"]);
      expect(error.details?.check).toMatch(`more documents than the summary's ${sales33(202401).length - 1}`);
    }
  });

  it("keeps only the weight when a type past the synchronous ceiling answers no rows (502 pointing to the asynchronous download)", async () => {
    const { post } = await setup();
    const res = await post(`/api/v1/sii/rcv/ventas/detalle/${COMPANY}/201903/33`);
    expect([res.status, (await errorOf(res)).details?.documentos_resumen, res.headers.get("x-quota-units")]).toEqual([
      502,
      sales33(201903).length,
      "2",
    ]);
  }, 30_000);
});

describe("the asynchronous RCV file, charged by the documents its download request declares", () => {
  async function finished(post: (path: string) => Promise<Response>, periodo: string, later: () => void) {
    const job = (await answerOf(await post(`/api/v1/sii/rcv/ventas/async/solicitar/${COMPANY}/${periodo}/33`), JobEnvelope)).data;
    later();
    return `/api/v1/sii/rcv/ventas/async/detalle/${COMPANY}/${periodo}/${job.solicitud_id}/33`;
  }

  async function asyncSetup(plan?: { daily_units: number; monthly_units: number }) {
    const clock = { at: Date.parse("2026-11-22T15:00:00Z") };
    // Tidy: the tests count the SII's reads exactly.
    const sii = sandboxTransport(createDefaultSandbox({ now: () => clock.at, roughSeed: null }));
    const t = probeApp();
    t.deps.clock = { now: () => new Date(clock.at) };
    t.deps.sii = sii;
    const token = await tokenFor(t.deps, { scopes: ["sii:read"], ...(plan ? { plan } : {}) });
    const post = (path: string) => postJson(t.app, token.secret, path, company);
    const later = () => {
      clock.at += 3 * ASYNC_STEP_MS;
    };
    return { post, later, calls: simulatorOf(sii).state.calls };
  }

  it("costs the weight for a small file and the weight per started block of documents for a large one", async () => {
    const { post, later } = await asyncSetup();
    const small = await post(await finished(post, "202401", later));
    expect([small.status, small.headers.get("x-quota-units")]).toEqual([200, "2"]);
    expect((await answerOf(small, FileEnvelope)).data.registros).toBe(sales33(202401).length);
    const documents = sales33(201902).length;
    expect(documents).toBeGreaterThan(3 * FILE_BLOCK_ROWS);
    const large = await post(await finished(post, "201902", later));
    expect([large.status, large.headers.get("x-quota-units")]).toEqual([200, String(2 * Math.ceil(documents / FILE_BLOCK_ROWS))]);
    expect((await answerOf(large, FileEnvelope)).data.registros).toBe(documents);
  });

  it("answers 429 before the file is fetched when the plan cannot pay for its documents", async () => {
    // 1 unit asks for the file; the weight of the documents' call leaves 2 of the 5, short of the blocks beyond the first.
    const { post, later, calls } = await asyncSetup({ daily_units: 5, monthly_units: 100 });
    const path = await finished(post, "201902", later);
    calls.clear();
    const res = await post(path);
    const error = await errorOf(res);
    expect([res.status, error.error_code, error.details?.units_needed, res.headers.get("x-quota-units")]).toEqual([
      429,
      "QUOTA_EXCEEDED",
      2 * Math.ceil(sales33(201902).length / FILE_BLOCK_ROWS) - 2,
      "2",
    ]);
    expect([calls.get("rcv_async"), calls.get("rcv_blob")]).toEqual([1, undefined]);
  });
});

describe("the one-document lookup, charged by the documents it reads to find the folio", () => {
  /** The purchases of type 33 of a period in every state: what the lookup reads. */
  const purchases33 = (periodo: number) => rcvDocuments(COMPANY, periodo, "COMPRA").filter((d) => d.tipo === 33);
  const lookup = (periodo: number, folio: number) => `/api/v1/sii/rcv/compras/detalle/documento/${COMPANY}/${periodo}/33/${folio}`;

  it("costs its weight for a small period and 1 unit per started block of documents read for a large one", async () => {
    const { post } = await setup();
    const [first] = purchases33(202401);
    const small = await post(lookup(202401, first?.folio ?? 1));
    expect([small.status, small.headers.get("x-quota-units")]).toEqual([200, "1"]);
    const documents = purchases33(201902);
    expect(documents.length).toBeGreaterThan(2 * LOOKUP_BLOCK_ROWS);
    const large = await post(lookup(201902, documents[0]?.folio ?? 1));
    expect([large.status, large.headers.get("x-quota-units")]).toEqual([200, String(lookupUnits(documents.length))]);
  });

  it("answers 429 before a state's documents are checked when the plan cannot pay for them", async () => {
    const { post, calls } = await setup({ daily_units: 2, monthly_units: 100 });
    const documents = purchases33(201902);
    const res = await post(lookup(201902, documents[0]?.folio ?? 1));
    const error = await errorOf(res);
    expect([res.status, error.error_code]).toEqual([429, "QUOTA_EXCEEDED"]);
    // Refused at the first state whose documents go past what the plan pays: not every state was read.
    const states = calls.get("rcv_detalle") ?? 0;
    expect([states > 0, states < 4]).toEqual([true, true]);
  });
});
