// Runner-neutral cases for documentos/generar with the folio ledger, through the real app over a
// runtime's stores (Durable Objects in workerd, DynamoDB): each case builds several apps over the
// same backing state, as several isolates or processes would be, and spreads its calls over them,
// so only the store's own atomicity keeps folios apart. What test/node/generar-ledger.test.ts
// checks on memory, on the stores the other runtimes deploy with.
import { expect } from "vitest";
import { base64ToBytes, bytesToBase64 } from "../../src/lib/encoding.ts";
import { decodeLatin1, encodeLatin1 } from "../../src/lib/latin1.ts";
import { Generated } from "../../src/routes/documentos/generar.ts";
import { EXAMPLE_CAF, EXAMPLE_EXEMPT_INVOICE } from "../../src/routes/example-documents.ts";
import { LedgerEnvelope } from "../../src/routes/folio-ledger-schema.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { buildCaf } from "../../src/sandbox/folios-caf.ts";
import { answerIn, answerOf, errorOf } from "./answers.ts";
import { postJson, probeApp, type Stores, tokenFor } from "./app.ts";
import { foliosIn, ledgerSchedule, requestBody } from "./ledger-schedule.ts";

export interface LedgerCase {
  name: string;
  run(): Promise<void>;
}

const GENERAR = "/api/v1/platform/dte/documentos/generar";
const COMPANY = "76192083-9";
const LEDGER = `/api/v1/platform/dte/folios/${COMPANY}/34`;
/** Apps over the same state: the calls of a case go to each in turn. */
const APPS = 3;
/** Concurrent calls on one ledger in the first case, unless a runtime's cases ask for fewer. */
const CONCURRENT = 50;
const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
const { Folio: _folio, ...idDoc } = EXAMPLE_EXEMPT_INVOICE.Encabezado.IdDoc;
/** The example exempt invoice without its Folio: the ledger gives it one. */
const INVOICE = { ...EXAMPLE_EXEMPT_INVOICE, Encabezado: { ...EXAMPLE_EXEMPT_INVOICE.Encabezado, IdDoc: idDoc } };
const REQUEST = {
  auth: { cert: { "cert-data": juana.certPem, "pkey-data": juana.keyPem } },
  dte: INVOICE,
  resolucion: { fecha: "2014-08-22", numero: 80 },
};
const b64 = (xml: string) => bytesToBase64(encodeLatin1(xml));

let counter = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

/**
 * A CAF of 100 folios (or `size`) of its own for a case: a CAF's range is held by one account across the
 * store, so cases on a shared store never add the same one. Answers the file (base64) and its first folio.
 */
async function freshCaf(size = 100): Promise<{ caf: string; first: number }> {
  const first = 1 + 1000 * (((Date.now() % 100_000) * 37 + counter++ * 101) % 1_000_000);
  const xml = await buildCaf({
    rut: COMPANY,
    razonSocial: "COMERCIAL SANDBOX SPA",
    tipo: 34,
    desde: first,
    hasta: first + size - 1,
    fecha: "2026-11-01",
  });
  return { caf: b64(xml), first };
}

async function setup(stores: () => Stores | Promise<Stores>) {
  const first = probeApp(await stores());
  const apps = [first, ...(await Promise.all(Array.from({ length: APPS - 1 }, async () => probeApp(await stores()))))];
  let turn = 0;
  const next = () => (apps[turn++ % apps.length] ?? first).app;
  const as = async (account: string) => {
    const { secret } = await tokenFor(first.deps, {
      account,
      scopes: ["sii:read", "sii:write"],
      plan: { daily_units: 100_000, monthly_units: 1_000_000 },
    });
    return {
      add: (caf: string) => postJson(next(), secret, LEDGER, { caf }),
      ledger: () => next().request(LEDGER, { headers: { "x-api-token": secret } }),
      generar: (key?: string) => postJson(next(), secret, GENERAR, REQUEST, key ? { "idempotency-key": key } : {}),
      send: (body: string, key?: string) => postJson(next(), secret, GENERAR, JSON.parse(body), key ? { "idempotency-key": key } : {}),
    };
  };
  return { as };
}

const folioOf = async (res: Response): Promise<number[]> => {
  const text = await res.text();
  expect(res.status, text.slice(0, 300)).toBe(200);
  return answerIn(text, Generated, res.status).data.documentos.map((d) => d.folio);
};

export function ledgerGenerarCases(stores: () => Stores | Promise<Stores>, concurrent = CONCURRENT): LedgerCase[] {
  return [
    {
      name: `${concurrent} concurrent generar calls without caf or Folio get ${concurrent} distinct consecutive folios`,
      async run() {
        const acme = await (await setup(stores)).as(unique("acme"));
        const { caf, first } = await freshCaf();
        expect((await acme.add(caf)).status).toBe(200);
        const answers = await Promise.all(Array.from({ length: concurrent }, () => acme.generar()));
        const folios = (await Promise.all(answers.map(folioOf))).flat().sort((a, b) => a - b);
        expect(folios).toEqual(Array.from({ length: concurrent }, (_, i) => first + i));
        expect((await answerOf(await acme.ledger(), LedgerEnvelope)).data).toMatchObject({
          disponibles: 100 - concurrent,
          siguiente: first + concurrent,
        });
      },
    },
    {
      name: "a retry with the same Idempotency-Key gets the stored answer (same folio, not signed again); another key the next one",
      async run() {
        const acme = await (await setup(stores)).as(unique("acme"));
        const { caf, first } = await freshCaf();
        await acme.add(caf);
        const key = unique("retry");
        const answer = await acme.generar(key);
        const replay = await acme.generar(key);
        expect([replay.headers.get("idempotent-replayed"), await replay.clone().text()]).toEqual(["true", await answer.clone().text()]);
        expect(await folioOf(answer)).toEqual([first]);
        expect(await folioOf(await acme.generar(unique("other")))).toEqual([first + 1]);
        expect((await answerOf(await acme.ledger(), LedgerEnvelope)).data.rangos[0]).toMatchObject({ usados: 2 });
      },
    },
    {
      name: "another account's token sees 404 on the ledger and cannot take its folios",
      async run() {
        const t = await setup(stores);
        const acme = await t.as(unique("acme"));
        const other = await t.as(unique("other"));
        const { caf, first } = await freshCaf();
        await acme.add(caf);
        const seen = await other.ledger();
        expect([seen.status, (await errorOf(seen)).error_code]).toEqual([404, "HTTP_404"]);
        const taken = await other.generar();
        expect([taken.status, (await errorOf(taken)).error_code]).toEqual([404, "HTTP_404"]);
        expect((await answerOf(await acme.ledger(), LedgerEnvelope)).data).toMatchObject({ disponibles: 100, siguiente: first });
        const twice = await other.add(caf);
        expect([twice.status, (await errorOf(twice)).error_code]).toEqual([409, "FOLIOS_OVERLAP"]);
      },
    },
    {
      name: "an exhausted ledger answers 409 FOLIOS_EXHAUSTED naming issuer and type",
      async run() {
        const acme = await (await setup(stores)).as(unique("acme"));
        const { caf, first } = await freshCaf(1);
        expect((await acme.add(caf)).status).toBe(200);
        expect(await folioOf(await acme.generar())).toEqual([first]);
        const none = await acme.generar();
        const body = await errorOf(none);
        expect([none.status, body.error_code, body.details]).toEqual([
          409,
          "FOLIOS_EXHAUSTED",
          { emisor: COMPANY, dte: 34, solicitados: 1, disponibles: 0 },
        ]);
      },
    },
    {
      name: "a forged CAF is refused on POST: an edited range, or the genuine DA in a comment beside an edited one",
      async run() {
        const acme = await (await setup(stores)).as(unique("acme"));
        const xml = decodeLatin1(base64ToBytes(EXAMPLE_CAF));
        const edited = await acme.add(b64(xml.replace("<H>100</H>", "<H>9000</H>")));
        expect(edited.status).toBe(400);
        expect((await errorOf(edited)).errors?.[0]).toMatchObject({ path: "caf.FRMA", message: expect.stringContaining("not authentic") });
        const genuine = /<DA>[\s\S]*?<\/DA>/.exec(xml)?.[0] ?? "";
        expect(genuine).not.toBe("");
        const hidden = await acme.add(b64(xml.replace(genuine, `<!--${genuine}-->${genuine.replace("<H>100</H>", "<H>9000</H>")}`)));
        expect(hidden.status).toBe(400);
        expect((await errorOf(hidden)).errors?.[0]?.message).toContain("comment");
        expect((await acme.ledger()).status).toBe(404);
      },
    },
    ...[1, 2].map(
      (round): LedgerCase => ({
        name: `property, round ${round}: 30 concurrent calls over ${APPS} apps (keys reused with the same or another request, calls without a key, refusals at a random document): no folio in two answers, the folios used are exactly those answered`,
        async run() {
          const seed = Math.floor(Math.random() * 2 ** 31);
          try {
            const acme = await (await setup(stores)).as(unique("acme"));
            const { caf, first } = await freshCaf();
            expect((await acme.add(caf)).status).toBe(200);
            const { calls } = ledgerSchedule(seed, { unkeyed: true });
            const outcomes = await Promise.all(
              calls.map(async (call) => {
                const res = await acme.send(call.body, call.key);
                return { call, status: res.status, text: await res.text() };
              }),
            );
            const answers = new Map<string, Set<string>>();
            for (const { call, status, text } of outcomes) {
              expect(call.refused ? [400, 409] : [200, 409], `seed ${seed}: ${text.slice(0, 200)}`).toContain(status);
              if (status === 200) answers.set(call.key ?? text, (answers.get(call.key ?? text) ?? new Set()).add(text));
            }
            for (const [key, seen] of answers) expect(seen.size, `seed ${seed}: ${key} answered one answer, byte for byte`).toBe(1);
            const folios = [...answers.values()].flatMap((seen) => [...seen].flatMap(foliosIn));
            expect(new Set(folios).size, `seed ${seed}: no folio in two answers`).toBe(folios.length);
            const after = (await answerOf(await acme.ledger(), LedgerEnvelope)).data;
            expect(after.rangos[0]?.usados, `seed ${seed}: used exactly the folios answered`).toBe(folios.length);
            const last = after.disponibles > 0 ? foliosIn(await (await acme.send(requestBody(after.disponibles, 9999))).text()) : [];
            expect(
              [...folios, ...last].sort((a, b) => a - b),
              `seed ${seed}`,
            ).toEqual(Array.from({ length: 100 }, (_, i) => first + i));
          } catch (error) {
            throw new Error(`ledger property failed with seed ${seed}: ${error instanceof Error ? error.message : error}`);
          }
        },
      }),
    ),
  ];
}
