// Turns and pacing of SII calls for one taxpayer: one call at a time per session, at most
// MAX_CALLS_PER_RUT at once per taxpayer and MAX_CALLS_PER_ACCOUNT from one account, pacing shared
// by every account, and every wait bounded (429 SII_RATE_LIMIT with Retry-After past it).
// Runs in Node and in workerd.
import { describe, expect, it } from "vitest";
import { memorySessionStore } from "../../src/adapters/memory/sessions.ts";
import type { SessionStore } from "../../src/ports/stores.ts";
import { sandboxTransport } from "../../src/sandbox/transport.ts";
import { CookieJar } from "../../src/sii/cookies.ts";
import { type SessionEnv, type SessionOwner, withWebSession } from "../../src/sii/sessions.ts";
import { MAX_CALLS_PER_ACCOUNT, MAX_CALLS_PER_RUT } from "../../src/sii/turns.ts";

const RUT = "76192083-9";
const clock = Date.now();

function setup(pacingMs = 0, waitMs = 2_000) {
  const store = memorySessionStore();
  const waits: number[] = [];
  const recording: SessionStore = {
    ...store,
    reserve: async (...args) => {
      const wait = await store.reserve(...args);
      waits.push(wait);
      return wait;
    },
  };
  const env: SessionEnv = {
    ctx: { transport: sandboxTransport(), timeoutMs: 2_000 },
    sessions: recording,
    secretKey: "test-secret-key-with-enough-characters-0123",
    // A still clock: the pacing slots are exactly the interval apart.
    now: () => new Date(clock),
    pacingMs,
    waitMs,
  };
  return { env, store, waits };
}

const owner = (account: string, proof = "clave"): SessionOwner => ({ account, rut: RUT, ambiente: "0", kind: "clave", proof });

/** A call whose login needs no SII and whose `use` takes `ms`, counting how many run at once. */
function caller(env: SessionEnv) {
  const running = new Map<string, number>();
  let now = 0;
  let most = 0;
  const mostBy = new Map<string, number>();
  const call = (who: SessionOwner, ms = 30) =>
    withWebSession(
      env,
      who,
      async () => new CookieJar(() => clock),
      async () => {
        now++;
        most = Math.max(most, now);
        const mine = (running.get(who.account) ?? 0) + 1;
        running.set(who.account, mine);
        mostBy.set(who.account, Math.max(mostBy.get(who.account) ?? 0, mine));
        await new Promise((resolve) => setTimeout(resolve, ms));
        running.set(who.account, (running.get(who.account) ?? 1) - 1);
        now--;
        return who.account;
      },
    );
  return { call, most: () => most, mostBy: (account: string) => mostBy.get(account) ?? 0 };
}

describe("turns of SII calls for one taxpayer", () => {
  it("runs at most three calls at once per taxpayer, at most two from one account", async () => {
    expect([MAX_CALLS_PER_RUT, MAX_CALLS_PER_ACCOUNT]).toEqual([3, 2]);
    const { env } = setup();
    const { call, most } = caller(env);
    const accounts = ["a1", "a2", "a3", "a4", "a5"];
    expect(await Promise.all(accounts.map((account) => call(owner(account))))).toEqual(accounts);
    expect(most()).toBe(3);
    // One account with four credentials (say, wrong claves) never takes the whole taxpayer.
    const { call: again, most: mostAgain, mostBy: byAccount } = caller(env);
    await Promise.all([...["k1", "k2", "k3", "k4"].map((proof) => again(owner("mallory", proof))), again(owner("victim"))]);
    expect(byAccount("mallory")).toBe(2);
    expect(mostAgain()).toBe(3);
  });

  it("paces calls for one taxpayer across accounts, through the shared store", async () => {
    const { env, waits } = setup(40);
    const { call } = caller(env);
    await Promise.all([call(owner("alpha"), 1), call(owner("beta"), 1)]);
    // Each call logs in and then uses the session: four slots, one interval apart, whoever asks.
    expect([...waits].sort((a, b) => a - b)).toEqual([0, 40, 80, 120]);
  });

  it("refuses a call whose pacing slot is past the bound, without booking it", async () => {
    const { env, store } = setup(1_000, 500);
    await store.reserve(`${RUT}|pace`, 1_000, new Date(clock));
    await store.reserve(`${RUT}|pace`, 1_000, new Date(clock));
    const { call } = caller(env);
    await expect(call(owner("beta"))).rejects.toMatchObject({
      status: 429,
      code: "SII_RATE_LIMIT",
      init: { headers: { "Retry-After": "2" }, details: { reason: "pacing", wait_ms: 2_000 } },
    });
    // Nothing was booked for the refused call: the next slot is still 2 s away, not 3 s.
    expect(await store.reserve(`${RUT}|pace`, 1_000, new Date(clock))).toBe(2_000);
  });

  it("refuses a call queued behind its own session past the bound, while other accounts' calls run", async () => {
    const { env } = setup(0, 100);
    const { call } = caller(env);
    // The order things end in, not how long they took: the suite runs on busy machines.
    const ended: string[] = [];
    const note = <T>(what: string, p: Promise<T>) => p.finally(() => ended.push(what));
    const slow = note("slow alpha", call(owner("alpha"), 1_500));
    const queued = note(
      "queued alpha",
      call(owner("alpha")).catch((err: unknown) => err),
    );
    expect(await note("beta", call(owner("beta"), 1))).toBe("beta");
    expect(await queued).toMatchObject({
      status: 429,
      code: "SII_RATE_LIMIT",
      init: { headers: { "Retry-After": "1" }, details: { reason: "taxpayer_busy" } },
    });
    expect(await slow).toBe("alpha");
    // Another account's call ran, and the queued one was refused at its 100 ms bound, both before the slow call ended.
    expect(ended.at(-1)).toBe("slow alpha");
  });
});
