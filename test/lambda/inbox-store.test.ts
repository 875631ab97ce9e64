// The inbox store's contract and property (test/support/inbox-store-contract.ts) on the DynamoDB adapter, on
// dynalite (which enforces the 400 KB item limit); the XML kept as its ISO-8859-1 bytes; and the store when its
// caller dies between two requests (a Lambda timed out or killed): a client that throws after its N-th request
// stands for the dead instance, and a store on the same table (another instance) carries on after it.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dynamoInboxStore } from "../../src/adapters/lambda/dynamodb-inbox.ts";
import { createDynamoStores } from "../../src/adapters/lambda/dynamodb-stores.ts";
import { type Call, dynamoClient, isRecord, itemIn, type Json, type Key } from "../../src/adapters/lambda/dynamodb-wire.ts";
import { createLambdaDeps } from "../../src/entry/lambda.ts";
import { INBOX_XML_MAX_CHARS, type InboxKey, type InboxStore } from "../../src/ports/inbox.ts";
import { freshAccount, inboxKey, inboxStoreContract, inboxStoreProperty, listAll } from "../support/inbox-store-contract.ts";
import { localDynamoDb } from "../support/local-dynamodb.ts";

const local = localDynamoDb("inbox-store");
const store = () => createDynamoStores(local.config).inbox;
const T0 = Date.UTC(2026, 11, 1);
const KEPT = 400 * 24 * 3600_000;

/** Every item of the account's inboxes, read raw. */
async function itemsOf(account: string): Promise<Json[]> {
  const page = await dynamoClient(local.config)("Scan", {
    TableName: local.config.table,
    ConsistentRead: true,
    FilterExpression: "begins_with(pk, :prefix)",
    ExpressionAttributeValues: { ":prefix": { S: `inbox#${account}#` } },
  });
  return Array.isArray(page.Items) ? page.Items.filter(isRecord) : [];
}

/** The TTL attribute of each record and list entry of the account (not the counters, which never expire). */
const expiresAt = async (account: string) =>
  (await itemsOf(account))
    .filter((item) => (item.sk as { S: string }).S !== "counter")
    .map((item) => Number((item.expires_at as { N: string }).N))
    .sort((a, b) => a - b);

describe("the inbox on DynamoDB", () => {
  inboxStoreContract(store, { erasure: { by: "ttl", expiresAt } });
  inboxStoreProperty(store, 12);

  it("keeps the XML as its ISO-8859-1 bytes, so the longest with accents stays under the item limit", async () => {
    const a = freshAccount();
    const xml = "ñ".repeat(INBOX_XML_MAX_CHARS);
    const put = await store().put(a, inboxKey(1), { facts: { n: 1 }, xml, expires: T0 + KEPT }, null, T0);
    expect(put.state).toBe("written");
    const record = (await itemsOf(a)).find((item) => (item.sk as { S: string }).S.startsWith("doc#"));
    const bytes = atob((record!.xml as { B: string }).B);
    // One byte a character: as UTF-8 text it would be 600 000 bytes, over the 400 KB limit.
    expect(bytes.length).toBe(INBOX_XML_MAX_CHARS);
    expect((await store().get(a, inboxKey(1), T0))?.xml === xml).toBe(true);
  });

  it("is refused by the table past the item limit: the limit the longest XML is kept under is real here", async () => {
    const a = freshAccount();
    const xml = "A".repeat(INBOX_XML_MAX_CHARS);
    const facts = { detalle: "x".repeat(120_000) };
    await expect(store().put(a, inboxKey(1), { facts, xml, expires: T0 + KEPT }, null, T0)).rejects.toThrow(/size/);
  });

  it("is the Lambda deps' inbox: what one instance files, another reads", async () => {
    const env = {
      DYNAMODB_TABLE: local.config.table,
      DYNAMODB_ENDPOINT: local.config.endpoint,
      AWS_REGION: local.config.region,
      AWS_ACCESS_KEY_ID: "local",
      AWS_SECRET_ACCESS_KEY: "local",
      SII_UPSTREAM: "sandbox",
      SECRET_KEY: "lambda-test-secret-key-0123456789abcdef",
    };
    const [one, two] = [await createLambdaDeps(env), await createLambdaDeps(env)];
    const a = freshAccount();
    expect((await one.inbox.put(a, inboxKey(1), { facts: { n: 1 }, xml: null, expires: T0 + KEPT }, null, T0)).state).toBe("written");
    expect(await two.inbox.get(a, inboxKey(1), T0)).toMatchObject({ seq: 1, facts: { n: 1 } });
  });

  it("refuses a receiver holding the key separator, so two inboxes never share a partition", async () => {
    await expect(store().get("acct", inboxKey(1, { receptor: "1#2" }), T0)).rejects.toThrow(RangeError);
  });
});

class Crash extends Error {}

/** A store on the table whose client dies at its `after`-th request. */
function dying(after: number): InboxStore {
  const base = dynamoClient(local.config);
  let calls = 0;
  const call: Call = async (operation, body) => {
    if (++calls >= after) throw new Crash(`died at request ${calls}`);
    return base(operation, body);
  };
  const getItem = async (k: Key) => itemIn(await call("GetItem", { TableName: local.config.table, Key: k, ConsistentRead: true }), "Item");
  return dynamoInboxStore(call, local.config.table, getItem);
}

/** Runs `work`, which may die: whether it was answered. */
const survive = async (work: () => Promise<unknown>): Promise<boolean> => {
  try {
    await work();
    return true;
  } catch (err) {
    if (err instanceof Crash) return false;
    throw err;
  }
};

const KEYS: InboxKey[] = [1, 2, 3, 4].map((folio) => inboxKey(folio));
const write = (ids: string[]) => ({ facts: { ids }, xml: `<DTE n="${ids.length}"/>`, expires: T0 + KEPT });

type Step = { op: "bump" | "delete"; key: number; dieAt: number | null };

describe("the inbox on DynamoDB, its writer dying between two requests", () => {
  it("with no delete, numbers an inbox 1 … n whatever request a first filing dies at", async () => {
    for (let dieAt = 1; dieAt <= 12; dieAt++) {
      const a = freshAccount();
      await store().put(a, KEYS[0]!, write([]), null, T0);
      await survive(() => dying(dieAt).put(a, KEYS[1]!, write(["dead"]), null, T0));
      // Another instance files the next document, then a read finds (and numbers) the one the dead writer left.
      expect((await store().put(a, KEYS[2]!, write([]), null, T0)).state).toBe("written");
      const left = await store().get(a, KEYS[1]!, T0);
      const listed = await listAll(store(), a, KEYS[0]!.receptor, T0);
      const n = left ? 3 : 2;
      expect(
        listed.map((d) => d.seq),
        `died at request ${dieAt}`,
      ).toEqual(Array.from({ length: n }, (_, i) => n - i));
      if (left) expect(listed.find((d) => d.folio === 2)).toMatchObject({ seq: left.seq, facts: { ids: ["dead"] } });
      // Its writer, were it to try again, finds it there (a conflict) or files it now.
      const again = await store().put(a, KEYS[1]!, write(["again"]), null, T0);
      expect(again.state).toBe(left ? "conflict" : "written");
    }
  });

  /**
   * The invariant, in words: whatever request a writer dies at, (1) an acknowledged increment is never lost,
   * none is counted twice, and an increment is in a record only if its writer acknowledged it or died; (2) a
   * key has one record at most, which the list answers once after any read of it, newest first; (3) each new
   * record's seq is above every seq the inbox gave before, and a record keeps its seq.
   */
  it("property: a dead writer loses no acknowledged increment, doubles none, and leaves the seqs in order", async () => {
    const step: fc.Arbitrary<Step> = fc.record({
      op: fc.constantFrom("bump" as const, "bump" as const, "delete" as const),
      key: fc.integer({ min: 0, max: KEYS.length - 1 }),
      dieAt: fc.option(fc.integer({ min: 1, max: 12 }), { nil: null }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const a = freshAccount();
        const lives: ({ seq: number; acked: Set<string>; maybe: Set<string> } | null)[] = KEYS.map(() => null);
        let highest = 0;
        let made = 0;
        for (const s of steps) {
          const writer = s.dieAt === null ? store() : dying(s.dieAt);
          const key = KEYS[s.key]!;
          const id = `inc${++made}`;
          let answered: boolean;
          if (s.op === "delete") answered = await survive(() => writer.delete(a, key));
          else
            answered = await survive(async () => {
              for (;;) {
                const doc = await writer.get(a, key, T0);
                const ids = doc ? (doc.facts.ids as string[]) : [];
                const put = await writer.put(a, key, write([...ids, id]), doc ? doc.version : null, T0);
                if (put.state === "written") return;
              }
            });
          if (s.op === "delete" && answered) lives[s.key] = null;
          // What the others see now: the list (which may not have a record its writer died before numbering),
          // then each key read (which numbers it), then the list again, which has them all.
          const before = await listAll(store(), a, key.receptor, T0);
          const docs = await Promise.all(KEYS.map((k) => store().get(a, k, T0)));
          const after = await listAll(store(), a, key.receptor, T0);
          for (const d of before) expect(after.map((x) => x.folio)).toContain(d.folio);
          expect(after.map((d) => [d.folio, d.seq])).toEqual(
            docs.flatMap((d) => (d ? [[d.folio, d.seq]] : [])).sort((x, y) => y[1]! - x[1]!),
          );
          for (const [i, doc] of docs.entries()) {
            let life = lives[i]!;
            if (s.op === "bump" && s.key === i && answered) expect(doc, `key ${i} acknowledged`).not.toBeNull();
            if (!doc) {
              // Gone only by a delete (answered, or one that died after its write).
              if (life) expect(s.op === "delete" && s.key === i && !answered, `key ${i} lost`).toBe(true);
              lives[i] = null;
              continue;
            }
            if (!life || life.seq !== doc.seq) {
              // A new record: after its first filing (this step's), above every seq before.
              expect(s.op === "bump" && s.key === i, `key ${i} filed by nobody`).toBe(true);
              expect(doc.seq).toBeGreaterThan(highest);
              highest = doc.seq;
              life = { seq: doc.seq, acked: new Set(), maybe: new Set() };
              lives[i] = life;
            }
            if (s.key === i && s.op === "bump") (answered ? life.acked : life.maybe).add(id);
            const ids = doc.facts.ids as string[];
            expect(new Set(ids).size, `key ${i}: no increment twice`).toBe(ids.length);
            for (const acked of life.acked) expect(ids, `key ${i}: acknowledged ${acked} kept`).toContain(acked);
            for (const held of ids) expect(life.acked.has(held) || life.maybe.has(held), `key ${i}: ${held} never written`).toBe(true);
          }
        }
      }),
      { numRuns: 15 },
    );
  });
});
