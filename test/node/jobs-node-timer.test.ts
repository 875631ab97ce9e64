// The Node runtime runs jobs by itself: a real server on a SQLite file, an envelope sent with `seguir`,
// the sandbox's clock moved past the job's first run, and the job's timer (src/entry/node-jobs.ts) takes
// it to its verdict with no runner called by hand; closing the server stops the timer.
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

const juanaCert = { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem };
const DEV = "sii_dev_jobs_timer_test";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("jobs on the Node server", () => {
  it("the server's timer runs a due job to its verdict event", { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "sii-gw-jobs-"));
    const started = await createNodeServer({
      env: { SII_UPSTREAM: "sandbox", ADMIN_TOKEN: ADMIN, DEV_API_TOKEN: DEV },
      database: join(dir, "state.sqlite"),
      publicDir: dir,
      log: { log: () => {} },
    });
    await new Promise<void>((resolve) => started.server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(started.server.address() as AddressInfo).port}`;
    const call = (path: string, body?: unknown) =>
      fetch(`${base}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { "x-api-token": DEV, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    try {
      const juana = await parseCertificateCredential(juanaCert, new Date());
      const xml = await signedEnvelope(juana, "76192083-9", [{ tipo: 33, folio: 71, receptor: "22222222-2", total: 11_900 }]);
      const sent = await call("/api/v1/platform/dte/envios/enviar", { auth: { cert: juanaCert }, xml: bytesToBase64(xml), seguir: true });
      const job = ((await sent.json()) as { data: { seguimiento: { id: string } } }).data.seguimiento;
      expect((await call("/sandbox/v1/clock", { avanzar_segundos: 40 })).status).toBe(200);
      let estado = "";
      for (const deadline = Date.now() + 45_000; Date.now() < deadline && estado !== "completado"; await sleep(200))
        estado = ((await (await call(`/api/v1/jobs/${job.id}`)).json()) as { data: { estado: string } }).data.estado;
      expect(estado).toBe("completado");
      const feed = (await (await call("/api/v1/events")).json()) as { data: { events: { type: string; data: { job_id: string } }[] } };
      expect(feed.data.events.map((e) => [e.type, e.data.job_id])).toEqual([["dte_envio.processed", job.id]]);
    } finally {
      await new Promise((resolve) => started.server.close(resolve));
      await started.jobs.stop();
    }
  });
});
