// Webhooks end to end on the Node runtime: a real server on a SQLite file, its own job timer and its real
// sender, and a receiver on loopback (allowed in sandbox mode). An envelope sent with `seguir` reaches its
// verdict on the sandbox's clock and exactly one `dte_envio.processed` is delivered: after a 500 and a 500,
// the third attempt's 200, the same `webhook-id` each time, each one verified by the npm `standardwebhooks`.
import { mkdtempSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import { createNodeServer } from "../../src/entry/node-server.ts";
import { bytesToBase64 } from "../../src/lib/encoding.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { ADMIN } from "../support/app.ts";
import { signedEnvelope } from "../support/envelope.ts";
import { loopbackReceiver } from "../support/webhook-receiver.ts";
import { verifies } from "../support/webhook-verify.ts";

const juanaCert = { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem };
const DEV = "sii_dev_webhooks_e2e_test";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("webhooks on the Node server", () => {
  it("a followed envelope's verdict reaches a loopback receiver once it answers 2xx: 500, 500, 200 with one webhook-id", {
    timeout: 90_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "sii-gw-webhooks-"));
    const started = await createNodeServer({
      env: { SII_UPSTREAM: "sandbox", ADMIN_TOKEN: ADMIN, DEV_API_TOKEN: DEV },
      database: join(dir, "state.sqlite"),
      publicDir: dir,
      log: { log: () => {} },
    });
    await new Promise<void>((resolve) => started.server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(started.server.address() as AddressInfo).port}`;
    const call = async (path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { "x-api-token": DEV, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return (await res.json()) as { data: Record<string, unknown> & { [key: string]: never } };
    };
    const hook = await loopbackReceiver([500, 500]);
    /** Waits (a bounded while) until the receiver has `n` requests; the server's timer looks at least every 5 s. */
    const until = async (n: number) => {
      for (const deadline = Date.now() + 30_000; Date.now() < deadline && hook.received.length < n; ) await sleep(100);
      return hook.received.length;
    };
    try {
      const created = (await call("/api/v1/webhooks/endpoints", { url: hook.url })).data as unknown as {
        secreto: string;
        endpoint: { id: string };
      };
      const juana = await parseCertificateCredential(juanaCert, new Date());
      const xml = await signedEnvelope(juana, "76192083-9", [{ tipo: 33, folio: 72, receptor: "22222222-2", total: 11_900 }]);
      const sent = (await call("/api/v1/platform/dte/envios/enviar", { auth: { cert: juanaCert }, xml: bytesToBase64(xml), seguir: true }))
        .data as unknown as { track_id: string; seguimiento: { id: string } };
      await call("/sandbox/v1/clock", { avanzar_segundos: 40 });
      expect(await until(1)).toBe(1);
      await call("/sandbox/v1/clock", { avanzar_segundos: 6 });
      expect(await until(2)).toBe(2);
      await call("/sandbox/v1/clock", { avanzar_segundos: 6 * 60 });
      expect(await until(3)).toBe(3);
      // Delivered and written: nothing is left to send (no retry waits), however long.
      const entrega = async () =>
        (
          (await call(`/api/v1/webhooks/endpoints/${created.endpoint.id}`)).data as unknown as {
            entrega: { entregados: number; reintentos: number };
          }
        ).entrega;
      for (const deadline = Date.now() + 30_000; Date.now() < deadline && (await entrega()).entregados < 1; ) await sleep(100);
      expect(await entrega()).toMatchObject({ entregados: 1, reintentos: 0 });
      expect(hook.received).toHaveLength(3);
      const bodies = hook.received.map(
        (r) => JSON.parse(r.body) as { id: string; type: string; data: { job_id: string; track_id: string } },
      );
      expect(bodies.map((b) => [b.type, b.data.job_id, b.data.track_id])).toEqual(
        Array(3).fill(["dte_envio.processed", sent.seguimiento.id, sent.track_id]),
      );
      expect(new Set(hook.received.map((r) => r.headers["webhook-id"]))).toEqual(new Set([bodies[0]!.id]));
      expect(hook.received.every((r) => verifies(created.secreto, r))).toBe(true);
    } finally {
      await hook.close();
      await new Promise((resolve) => started.server.close(resolve));
      await started.jobs.stop();
    }
  });
});
