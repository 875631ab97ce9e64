// Runner-neutral cases for the attacks on the idempotency store, through the real app over each
// runtime's stores (memory, SQLite, Durable Objects, DynamoDB): a flood of refused requests under
// fresh keys, and the per-account cap on live answers.

import { errorOf } from "./answers.ts";
import type { Stores } from "./app.ts";
import { probeApp, tokenFor, writeBody, writePath } from "./app.ts";

export interface AttackCase {
  name: string;
  run(): Promise<void>;
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`idempotency attack: ${message}`);
}

let counter = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

/** The refused requests of the flood: enough to show a trend, few enough for workerd and DynamoDB. */
const FLOOD = 40;

async function setup(stores: () => Stores | Promise<Stores>, config = {}) {
  const t = probeApp(await stores(), config);
  const account = unique("acct");
  const token = await tokenFor(t.deps, { account, plan: { daily_units: 100_000, monthly_units: 1_000_000 } });
  const post = (key?: string) =>
    t.app.request(writePath, {
      method: "POST",
      headers: { "x-api-token": token.secret, "content-type": "application/json", ...(key ? { "idempotency-key": key } : {}) },
      body: writeBody,
    });
  const stored = () => t.deps.idempotency.stored(account, t.deps.clock.now());
  return { ...t, post, stored };
}

export function idempotencyAttackCases(stores: () => Stores | Promise<Stores>): AttackCase[] {
  return [
    {
      name: `a flood of ${FLOOD} refused requests under fresh keys stores nothing and releases each key`,
      async run() {
        const { post, stored, probes } = await setup(stores);
        probes.behaviour.failWith = 400;
        const keys = Array.from({ length: FLOOD }, () => unique("flood"));
        for (const key of keys) {
          const res = await post(key);
          check(res.status === 400 && res.headers.get("x-quota-units") === "0", `refused for free, got ${res.status}`);
        }
        const held = await stored();
        check(held === 0, `records stored by the flood: ${held} of ${FLOOD}`);
        probes.behaviour.failWith = undefined;
        const retry = await post(keys[0]);
        check(retry.status === 200 && retry.headers.get("idempotent-replayed") === null, "a released key runs anew");
        check((await stored()) === 1, "the answer that ran is kept");
      },
    },
    {
      name: "a refusal that reached the SII is charged and kept for replays",
      async run() {
        const { post, stored, probes } = await setup(stores);
        probes.behaviour.failWith = 400;
        probes.behaviour.callSii = true;
        const key = unique("sii");
        const first = await post(key);
        check(first.status === 400 && first.headers.get("x-quota-units") === "5", `charged, got ${first.headers.get("x-quota-units")}`);
        const again = await post(key);
        check(again.headers.get("idempotent-replayed") === "true", "replayed");
        check(probes.calls.write === 1 && (await stored()) === 1, "ran once, one record");
      },
    },
    {
      name: "past the cap a new key answers 429 naming it, while replays and calls without a key go on",
      async run() {
        const { post, stored } = await setup(stores, { idempotencyMaxRecords: 3 });
        const keys = [unique("cap"), unique("cap"), unique("cap")];
        for (const key of keys) check((await post(key)).status === 200, "under the cap");
        const refused = await post(unique("cap"));
        const body = await errorOf(refused);
        check(refused.status === 429 && body.error_code === "QUOTA_EXCEEDED", `over the cap: ${refused.status} ${body.error_code}`);
        check(/holds 3 stored answers, the most it may hold is 3/.test(body.message), `message: ${body.message}`);
        check(Number(refused.headers.get("retry-after")) > 0, "Retry-After");
        check(refused.headers.get("x-quota-units") === "0", "not charged");
        check((await post(keys[0])).headers.get("idempotent-replayed") === "true", "a replay is served");
        check((await post()).status === 200, "a call without a key runs");
        check((await stored()) === 3, "still 3 records");
      },
    },
  ];
}
