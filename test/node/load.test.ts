// A bounded load on the Node entry over real loopback connections: mixed operations, concurrent
// retries of idempotent writes, and a plan that runs out. Afterwards: no answer but 200 and the
// intended 429s, the usage equals exactly what the answers charged, and each write reached the
// SII once per Idempotency-Key.
import { mkdtempSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeServer } from "../../src/entry/node-server.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { tokenFor } from "../support/app.ts";

const TOTAL = 400;
const CONCURRENCY = 16;
const WRITE_KEYS = 12;
const DAILY_UNITS = 300;

let base = "";
let started: Awaited<ReturnType<typeof createNodeServer>>;

beforeAll(async () => {
  started = await createNodeServer({
    env: { SII_UPSTREAM: "sandbox" },
    database: join(mkdtempSync(join(tmpdir(), "sii-gw-load-")), "state.sqlite"),
    publicDir: "public",
    log: { log: () => {} },
  });
  await new Promise<void>((resolve) => started.server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(started.server.address() as AddressInfo).port}`;
});
afterAll(() => started.server.close());

const juana = { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem };

/** The i-th request of the mix. */
function request(i: number, secret: string): [string, RequestInit] {
  const headers: Record<string, string> = { "x-api-token": secret, "content-type": "application/json" };
  switch (i % 4) {
    case 0:
      return [`${base}/api/v1/sii/indicadores/uf/anual/2024/${String((i % 12) + 1).padStart(2, "0")}/10`, { headers }];
    case 1:
      return [
        `${base}/api/v1/sii/rcv/compras/resumen/76192083-9/202405/REGISTRO`,
        { method: "POST", headers, body: JSON.stringify({ auth: { pass: { rut: "76192083-9", clave: "sandbox76" } } }) },
      ];
    case 2:
      return [
        `${base}/api/v1/sii/dte/caf/solicitar/76192083-9/33/5?dry_run=true`,
        { method: "POST", headers, body: JSON.stringify({ auth: { cert: juana } }) },
      ];
    default: {
      // The same few writes, retried concurrently under the same keys.
      const key = Math.floor(i / 4) % WRITE_KEYS;
      const body = { auth: { cert: juana }, documentos: { emisor: "77123456-9", dte: 33, folio: 2000 + key, accion: "ACD" } };
      return [
        `${base}/api/v1/platform/dte/intercambios/respuesta_sii`,
        { method: "POST", headers: { ...headers, "idempotency-key": `load-${key}` }, body: JSON.stringify(body) },
      ];
    }
  }
}

describe("load held (bounded, loopback)", () => {
  it(`${TOTAL} mixed requests at ${CONCURRENCY} at a time`, async () => {
    const token = await tokenFor(started.deps, {
      scopes: ["sii:read", "sii:write"],
      plan: { daily_units: DAILY_UNITS, monthly_units: 100_000 },
    });
    const answers: { status: number; code?: string; units: number; replayed: boolean }[] = [];
    let next = 0;
    const startedAt = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < TOTAL) {
          const [url, init] = request(next++, token.secret);
          const res = await fetch(url, init);
          const body = (await res.json()) as { error_code?: string };
          answers.push({
            status: res.status,
            code: body.error_code,
            units: Number(res.headers.get("x-quota-units") ?? 0),
            replayed: res.headers.get("idempotent-replayed") === "true",
          });
        }
      }),
    );
    const seconds = (performance.now() - startedAt) / 1000;

    const unexpected = answers.filter((a) => a.status !== 200 && !(a.status === 429 && a.code === "QUOTA_EXCEEDED"));
    expect(unexpected).toEqual([]);
    expect(answers).toHaveLength(TOTAL);
    expect(answers.some((a) => a.status === 429)).toBe(true);

    const usage = (await (await fetch(`${base}/api/v1/usage`, { headers: { "x-api-token": token.secret } })).json()) as {
      data: { usage: { daily: { used: number } } };
    };
    const charged = answers.filter((a) => !a.replayed).reduce((sum, a) => sum + a.units, 0);
    expect(usage.data.usage.daily.used).toBe(charged);
    expect(charged).toBeLessThanOrEqual(DAILY_UNITS);

    // Each write key reached the SII once, however many concurrent retries it had.
    const writes = answers.filter((a) => a.units === 5 && !a.replayed).length;
    expect(simulatorOf(started.deps.sii).state.calls.get("reclamos")).toBe(writes);
    expect(writes).toBeLessThanOrEqual(WRITE_KEYS);
    const byStatus = new Map<number, number>();
    for (const a of answers) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
    console.info(
      `load: ${TOTAL} requests at ${CONCURRENCY} at a time in ${seconds.toFixed(1)} s; answers ${[...byStatus].map(([s, n]) => `${s}:${n}`).join(" ")} (429s all QUOTA_EXCEEDED); usage ${usage.data.usage.daily.used} = ${charged} units charged; ${writes} writes reached the SII for ${WRITE_KEYS} idempotency keys, ${answers.filter((a) => a.replayed).length} replays`,
    );
  }, 60_000);
});
