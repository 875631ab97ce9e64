// documentos/generar with the account's folio ledger against the sandbox: documents without Folio
// in a request without caf get the next free folios, atomically and once per Idempotency-Key; a
// named Folio must be free in the ledger; the answer says which folios and what is left.
import { describe, expect, it } from "vitest";
import type { Scope } from "../../src/ports/access.ts";
import { FolioAnnulmentEnvelope } from "../../src/routes/caf/schema.ts";
import { Granted } from "../../src/routes/caf/solicitar.ts";
import { Generated } from "../../src/routes/documentos/generar.ts";
import { EXAMPLE_CAF, EXAMPLE_EXEMPT_INVOICE, EXAMPLE_INVOICE } from "../../src/routes/example-documents.ts";
import { AddedEnvelope, LedgerEnvelope } from "../../src/routes/folio-ledger-schema.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { buildCaf } from "../../src/sandbox/folios-caf.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const GENERAR = "/api/v1/platform/dte/documentos/generar";
const COMPANY = "76192083-9";
const LEDGER = `/api/v1/platform/dte/folios/${COMPANY}/34`;
const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
const cert = { "cert-data": juana.certPem, "pkey-data": juana.keyPem };

/** The example exempt invoice without its Folio, or with `folio`. */
function invoice(folio?: number) {
  const { Folio: _folio, ...idDoc } = EXAMPLE_EXEMPT_INVOICE.Encabezado.IdDoc;
  return {
    ...EXAMPLE_EXEMPT_INVOICE,
    Encabezado: { ...EXAMPLE_EXEMPT_INVOICE.Encabezado, IdDoc: folio === undefined ? idDoc : { ...idDoc, Folio: folio } },
  };
}
const request = (dte: unknown) => ({ auth: { cert }, dte, resolucion: { fecha: "2014-08-22", numero: 80 } });

async function setup(config?: Parameters<typeof probeApp>[1]) {
  const t = probeApp(undefined, config);
  const as = async (account: string, scopes: Scope[] = ["sii:read", "sii:write"]) => {
    const token = await tokenFor(t.deps, { account, scopes, plan: { daily_units: 10_000, monthly_units: 100_000 } });
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) => postJson(t.app, token.secret, path, body, headers);
    return {
      token: token.secret,
      post,
      generar: (dte: unknown, key?: string) => post(GENERAR, request(dte), key ? { "idempotency-key": key } : {}),
      ledger: async () => (await answerOf(await t.app.request(LEDGER, { headers: { "x-api-token": token.secret } }), LedgerEnvelope)).data,
      umbral: (umbral: unknown, path = `${LEDGER}/umbral`) =>
        t.app.request(path, {
          method: "PUT",
          headers: { "x-api-token": token.secret, "content-type": "application/json" },
          body: JSON.stringify({ umbral }),
        }),
    };
  };
  return { ...t, as };
}

const folioOf = async (res: Response) => (await answerOf(res, Generated)).data.documentos.map((d) => d.folio);

describe("generar with the folio ledger", () => {
  it("50 concurrent calls without Folio, each with its own key, get 50 distinct consecutive folios; X-Folios-Remaining says what is left", async () => {
    const t = await setup();
    const acme = await t.as("acme");
    expect((await acme.post(LEDGER, { caf: EXAMPLE_CAF })).status).toBe(200);
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => acme.generar(invoice(), `key-${i}`)));
    expect(answers.map((r) => r.status)).toEqual(Array(50).fill(200));
    const bodies = await Promise.all(answers.map((r) => answerOf(r, Generated)));
    const folios = bodies.flatMap((b) => b.data.documentos.map((d) => d.folio)).sort((a, b) => a - b);
    expect(folios).toEqual(Array.from({ length: 50 }, (_, i) => 1 + i));
    // Each answer counts what was left when it was made: at least the 50 no call took.
    const remaining = answers.map((r) => Number(r.headers.get("x-folios-remaining")));
    expect(Math.min(...remaining)).toBe(50);
    const one = bodies[0];
    expect(one?.data.folios_ledger).toEqual([
      { tipo: 34, folios: [one?.data.documentos[0]?.folio], disponibles: expect.any(Number), bajo_umbral: false },
    ]);
    expect(await acme.ledger()).toMatchObject({ disponibles: 50, siguiente: 51 });
  });

  it("a threshold set with PUT …/umbral makes generar answer X-Folios-Low once the type is at or below it, and GET flag bajo_umbral", async () => {
    const t = await setup();
    const acme = await t.as("acme");
    await acme.post(LEDGER, { caf: EXAMPLE_CAF });
    const set = await acme.umbral(98);
    expect(set.status).toBe(200);
    expect((await answerOf(set, LedgerEnvelope)).data).toMatchObject({ umbral: 98, disponibles: 100, bajo_umbral: false });
    const above = await acme.generar(invoice());
    expect([above.headers.get("x-folios-remaining"), above.headers.get("x-folios-low")]).toEqual(["99", null]);
    // The answer's body says what the headers say, per type.
    expect((await answerOf(above, Generated)).data.folios_ledger).toEqual([{ tipo: 34, folios: [1], disponibles: 99, bajo_umbral: false }]);
    const at = await acme.generar(invoice());
    expect([at.headers.get("x-folios-remaining"), at.headers.get("x-folios-low")]).toEqual(["98", "true"]);
    expect((await answerOf(at, Generated)).data.folios_ledger).toEqual([{ tipo: 34, folios: [2], disponibles: 98, bajo_umbral: true }]);
    const ledger = await acme.ledger();
    expect(ledger).toMatchObject({ umbral: 98, bajo_umbral: true, disponibles: 98 });
    expect(ledger.rangos[0]).toMatchObject({ bajo_umbral: true, por_vencer: false });
    // Another account's threshold is its own: acme's stays.
    expect((await (await t.as("other")).umbral(100)).status).toBe(200);
    expect((await acme.ledger()).umbral).toBe(98);
    expect((await answerOf(await acme.umbral(null), LedgerEnvelope)).data).toMatchObject({ umbral: null, bajo_umbral: false });
    expect((await acme.generar(invoice())).headers.get("x-folios-low")).toBeNull();
    const bad = await acme.umbral(-1);
    expect([bad.status, JSON.stringify(await errorOf(bad))]).toEqual([422, expect.stringContaining("umbral")]);
    const reader = await t.as("acme", ["sii:read"]);
    expect((await reader.umbral(5)).status).toBe(403);
  });

  it("a retry with the same Idempotency-Key gets the stored answer byte for byte, not charged; a new key the next ones", async () => {
    const t = await setup();
    const acme = await t.as("acme");
    await acme.post(LEDGER, { caf: EXAMPLE_CAF });
    const first = await acme.generar([invoice(), invoice()], "retry-1");
    const again = await acme.generar([invoice(), invoice()], "retry-1");
    expect([first.status, again.status]).toEqual([200, 200]);
    const [firstText, againText] = [await first.clone().text(), await again.clone().text()];
    expect(againText).toBe(firstText);
    expect([first.headers.get("idempotent-replayed"), again.headers.get("idempotent-replayed")]).toEqual([null, "true"]);
    expect([first.headers.get("x-quota-units"), again.headers.get("x-quota-units")]).toEqual(["2", "0"]);
    expect(await folioOf(first)).toEqual([1, 2]);
    expect(await folioOf(again)).toEqual([1, 2]);
    expect(again.headers.get("x-folios-remaining")).toBe("98");
    expect(await folioOf(await acme.generar(invoice(), "retry-2"))).toEqual([3]);
    const other = await acme.generar([invoice(), invoice(), invoice()], "retry-1");
    expect([other.status, (await errorOf(other)).error_code]).toEqual([409, "IDEMPOTENCY_CONFLICT"]);
  });

  it("another account without a ledger gets a 404 naming issuer and type, never the first account's folios", async () => {
    const t = await setup();
    await (await t.as("acme")).post(LEDGER, { caf: EXAMPLE_CAF });
    const res = await (await t.as("other")).generar(invoice());
    expect(res.status).toBe(404);
    expect((await errorOf(res)).message).toContain(`no folios of type 34 for ${COMPANY}`);
    expect(await (await t.as("acme")).ledger()).toMatchObject({ disponibles: 100 });
  });

  it("an exhausted ledger answers 409 FOLIOS_EXHAUSTED naming issuer and type, and takes none", async () => {
    const t = await setup();
    const acme = await t.as("acme");
    const caf = await buildCaf({ rut: COMPANY, razonSocial: "COMERCIAL SANDBOX SPA", tipo: 34, desde: 1, hasta: 2, fecha: "2026-11-01" });
    await acme.post(LEDGER, { caf: Buffer.from(caf, "latin1").toString("base64") });
    expect((await acme.generar(invoice())).headers.get("x-folios-remaining")).toBe("1");
    const res = await acme.generar([invoice(), invoice()]);
    const body = await errorOf(res);
    expect([res.status, body.error_code]).toEqual([409, "FOLIOS_EXHAUSTED"]);
    expect(body.details).toEqual({ emisor: COMPANY, dte: 34, solicitados: 2, disponibles: 1 });
    expect(body.message).toContain(`${COMPANY}, type 34`);
    expect(await acme.ledger()).toMatchObject({ disponibles: 1, siguiente: 2 });
  });

  it("a named Folio must be free in the ledger: used or outside is a 409 naming it; a free one is taken", async () => {
    const t = await setup();
    const acme = await t.as("acme");
    await acme.post(LEDGER, { caf: EXAMPLE_CAF });
    expect(await folioOf(await acme.generar(invoice(7)))).toEqual([7]);
    for (const [folio, reason] of [
      [7, "used"],
      [101, "outside"],
    ] as const) {
      const res = await acme.generar(invoice(folio));
      const body = await errorOf(res);
      expect([res.status, body.error_code, body.details?.folio, body.details?.motivo]).toEqual([409, "FOLIO_UNAVAILABLE", folio, reason]);
      expect(body.message).toContain(`Folio ${folio}`);
    }
    // A request that sends its own CAF is held to the ledger too when the account holds one of the type.
    const withCaf = await acme.post(GENERAR, { ...request(invoice(7)), caf: EXAMPLE_CAF });
    expect([withCaf.status, (await errorOf(withCaf)).error_code]).toEqual([409, "FOLIO_UNAVAILABLE"]);
    expect(await folioOf(await acme.generar(invoice()))).toEqual([1]);
    expect(await acme.ledger()).toMatchObject({ disponibles: 98 });
  });

  it("a request refused after taking folios gives them back", async () => {
    const t = await setup();
    const acme = await t.as("acme");
    await acme.post(LEDGER, { caf: EXAMPLE_CAF });
    const bad = invoice();
    const res = await acme.generar([bad, { ...bad, Encabezado: { ...bad.Encabezado, Receptor: { RUTRecep: "60803000-1" } } }], "bad");
    expect(res.status).toBe(400);
    expect(await acme.ledger()).toMatchObject({ disponibles: 100, siguiente: 1 });
    expect(await folioOf(await acme.generar(invoice(), "bad"))).toEqual([1]);
  });

  it("judges expiry by Chile's calendar day everywhere: vence, por_vencer and allocation agree while UTC is a day ahead", async () => {
    const t = await setup();
    const acme = await t.as("acme");
    // A type 33 CAF of 2026-11-01 may be used through 2027-05-01 (six months).
    const caf = await buildCaf({ rut: COMPANY, razonSocial: "COMERCIAL SANDBOX SPA", tipo: 33, desde: 1, hasta: 10, fecha: "2026-11-01" });
    const ledger33 = `/api/v1/platform/dte/folios/${COMPANY}/33`;
    const invoice33 = () => {
      const { Folio: _folio, ...idDoc } = EXAMPLE_INVOICE.Encabezado.IdDoc;
      return { ...EXAMPLE_INVOICE, Encabezado: { ...EXAMPLE_INVOICE.Encabezado, IdDoc: idDoc } };
    };
    // 02:00 UTC on 2 May is 22:00 of 1 May in Santiago (UTC-4 then): the range's last day there.
    t.deps.clock = { now: () => new Date("2027-05-02T02:00:00Z") };
    const added = await acme.post(ledger33, { caf: Buffer.from(caf, "latin1").toString("base64") });
    expect((await answerOf(added, AddedEnvelope)).data).toMatchObject({
      disponibles: 10,
      rango: { vence: "2027-05-01", por_vencer: true },
    });
    const read = async () =>
      (await answerOf(await t.app.request(ledger33, { headers: { "x-api-token": acme.token } }), LedgerEnvelope)).data;
    expect(await read()).toMatchObject({ disponibles: 10, siguiente: 1, rangos: [{ por_vencer: true }] });
    const issued = await acme.post(GENERAR, request(invoice33()));
    expect([issued.status, await folioOf(issued)]).toEqual([200, [1]]);
    // 04:30 UTC is past midnight in Santiago: expired for the answers and for allocation alike.
    t.deps.clock = { now: () => new Date("2027-05-02T04:30:00Z") };
    expect(await read()).toMatchObject({ disponibles: 0, siguiente: null, rangos: [{ usados: 1, por_vencer: false }] });
    const late = await acme.post(GENERAR, request(invoice33()));
    expect([late.status, (await errorOf(late)).error_code]).toEqual([409, "FOLIOS_EXHAUSTED"]);
  });

  it("solicitar with ledger: true adds the granted CAF to the ledger; generar then issues from it; anular records the rest void", async () => {
    const t = await setup();
    const acme = await t.as("acme");
    const granted = await acme.post(`/api/v1/sii/dte/caf/solicitar/${COMPANY}/34/5`, { auth: { cert }, ledger: true });
    expect(granted.status).toBe(200);
    const body = await answerOf(granted, Granted);
    const { folio_inicial: desde, folio_final: hasta } = body.data;
    expect(body.data.ledger).toMatchObject({ disponibles: 5, siguiente: desde, rango: { desde, hasta, usados: 0 } });
    expect(body.data.caf_xml).toBeTruthy();
    expect(await folioOf(await acme.generar(invoice()))).toEqual([desde]);
    const annulled = await acme.post(`/api/v1/sii/dte/caf/anular/${COMPANY}/34/${desde + 1}/${hasta}`, { auth: { cert } });
    expect(annulled.status).toBe(200);
    expect((await answerOf(annulled, FolioAnnulmentEnvelope)).data.anulados_ledger).toBe(4);
    expect(await acme.ledger()).toMatchObject({ disponibles: 0, siguiente: null, rangos: [{ desde, hasta, usados: 1, anulados: 4 }] });
    const none = await acme.generar(invoice());
    expect([none.status, (await errorOf(none)).error_code]).toEqual([409, "FOLIOS_EXHAUSTED"]);
    // Without the option nothing is added; an annulment of a range the ledger does not hold touches nothing.
    const plain = await answerOf(await acme.post(`/api/v1/sii/dte/caf/solicitar/${COMPANY}/34/2`, { auth: { cert } }), Granted);
    expect(plain.data.ledger).toBeUndefined();
    const other = await acme.post(`/api/v1/sii/dte/caf/anular/${COMPANY}/34/${plain.data.folio_inicial}/${plain.data.folio_final}`, {
      auth: { cert },
    });
    expect((await answerOf(other, FolioAnnulmentEnvelope)).data.anulados_ledger).toBe(0);
  });

  it("is charged by its Detalle lines too: two documents of 1 000 lines are two blocks", async () => {
    const t = await setup({ maxBodyBytes: 1024 * 1024 });
    const acme = await t.as("acme");
    await acme.post(LEDGER, { caf: EXAMPLE_CAF });
    const long = () => ({
      ...invoice(),
      Detalle: Array.from({ length: 1000 }, (_, i) => ({ NmbItem: `Item ${i}`, QtyItem: 1, PrcItem: 100 })),
    });
    const res = await acme.generar([long(), long()]);
    expect([res.status, res.headers.get("x-quota-units")]).toEqual([200, "4"]);
  });

  it("a duplicate in flight waits for the first and gets its answer, charged once", async () => {
    const t = await setup();
    const acme = await t.as("acme");
    await acme.post(LEDGER, { caf: EXAMPLE_CAF });
    const [a, b] = await Promise.all([acme.generar([invoice(), invoice()], "twin"), acme.generar([invoice(), invoice()], "twin")]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(await a.clone().text()).toBe(await b.clone().text());
    expect([a.headers.get("idempotent-replayed"), b.headers.get("idempotent-replayed")].sort()).toEqual([null, "true"].sort());
    expect([a.headers.get("x-quota-units"), b.headers.get("x-quota-units")].sort()).toEqual(["0", "2"]);
    expect(await acme.ledger()).toMatchObject({ disponibles: 98, siguiente: 3 });
  });

  it("an attempt held past its lease while a retry takes its key over: one 200, the other 409 IDEMPOTENCY_IN_PROGRESS, replays give the 200", async () => {
    const t = await setup({ idempotencyLeaseMs: 60_000 });
    let ahead = 0;
    t.deps.clock = { now: () => new Date(Date.now() + ahead) };
    const acme = await t.as("acme");
    await acme.post(LEDGER, { caf: EXAMPLE_CAF });
    // The first attempt stops once its folios are settled (its answer is signed); the lease then runs out.
    const settle = t.deps.folios.settle.bind(t.deps.folios);
    let stopped!: () => void;
    const isStopped = new Promise<void>((resolve) => {
      stopped = resolve;
    });
    let resume!: () => void;
    const resumed = new Promise<void>((resolve) => {
      resume = resolve;
    });
    let settles = 0;
    t.deps.folios.settle = async (...args) => {
      const settled = await settle(...args);
      if (settles++ === 0) {
        ahead = 61_000;
        stopped();
        await resumed;
      }
      return settled;
    };
    const slow = acme.generar([invoice(), invoice()], "late");
    await isStopped;
    const retry = await acme.generar([invoice(), invoice()], "late");
    resume();
    const late = await slow;
    expect([retry.status, late.status]).toEqual([200, 409]);
    const refused = await errorOf(late);
    expect(refused.error_code).toBe("IDEMPOTENCY_IN_PROGRESS");
    expect(refused.message).toMatch(/lease/);
    expect(late.headers.get("retry-after")).toBe("5");
    // The caller pays for the answer it gets, the retry's, not for the one refused.
    expect([retry.headers.get("x-quota-units"), late.headers.get("x-quota-units")]).toEqual(["2", "0"]);
    const replay = await acme.generar([invoice(), invoice()], "late");
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await replay.clone().text()).toBe(await retry.clone().text());
    expect(await folioOf(retry)).toEqual([1, 2]);
    expect(await acme.ledger()).toMatchObject({ disponibles: 98, siguiente: 3 });
  });

  it("the same key with other documents is a 409 IDEMPOTENCY_CONFLICT, not a second document on the same folio", async () => {
    const t = await setup();
    const acme = await t.as("acme");
    await acme.post(LEDGER, { caf: EXAMPLE_CAF });
    const first = await acme.generar(invoice(), "K");
    expect(await folioOf(first)).toEqual([1]);
    const other = invoice();
    other.Encabezado = { ...other.Encabezado, Receptor: { ...other.Encabezado.Receptor, RznSocRecep: "OTRO CLIENTE SPA" } };
    const second = await acme.generar({ ...other, Detalle: [{ NmbItem: "Otra asesoría", QtyItem: 1, PrcItem: 5000 }] }, "K");
    expect([second.status, (await errorOf(second)).error_code, second.headers.get("x-quota-units")]).toEqual([
      409,
      "IDEMPOTENCY_CONFLICT",
      "0",
    ]);
    expect(await acme.ledger()).toMatchObject({ disponibles: 99, siguiente: 2 });
  });

  it("a refused attempt racing a good one under the same key never frees folios another answer signed", async () => {
    const t = await setup();
    const acme = await t.as("acme");
    await acme.post(LEDGER, { caf: EXAMPLE_CAF });
    const good = () => Array.from({ length: 10 }, () => invoice());
    const bad = () => {
      const docs = good();
      const last = docs[9] as ReturnType<typeof invoice>;
      docs[9] = { ...last, Encabezado: { ...last.Encabezado, Emisor: { ...last.Encabezado.Emisor, RUTEmisor: "76086428-5" } } };
      return docs;
    };
    const answered: number[][] = [];
    const keep = async (res: Response) => {
      if (res.status === 200) answered.push(await folioOf(res));
      else expect([400, 409]).toContain(res.status);
    };
    for (const [i, gap] of [0, 0, 5, 10].entries()) {
      const refused = acme.generar(bad(), `race-${i}`);
      await new Promise((resolve) => setTimeout(resolve, gap));
      const retried = acme.generar(good(), `race-${i}`);
      await Promise.all([refused.then(keep), retried.then(keep)]);
    }
    for (let i = 0; i < 4; i++) await keep(await acme.generar(good(), `next-${i}`));
    const all = answered.flat();
    // Every folio in one answer only, and the ledger used exactly the folios answered.
    expect(new Set(all).size).toBe(all.length);
    expect(answered.length).toBeGreaterThanOrEqual(4);
    expect(await acme.ledger()).toMatchObject({ disponibles: 100 - all.length, siguiente: all.length + 1 });
  });
});
