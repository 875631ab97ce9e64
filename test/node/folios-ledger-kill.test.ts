// The folio ledger's property on SQLite (test/support/ledger-kill.ts has it and its invariant): two
// `npm start` processes on one SQLite file, random calls over both, both killed -9 and started again.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "vitest";
import { freePort, KILL_TEST_LEASE_MS, KILL_TEST_TOKEN, killDuringBatch, spawnGateway } from "../support/ledger-kill.ts";

const root = join(import.meta.dirname, "..", "..");

describe("folio ledger on SQLite, two processes, kill -9 in the middle of a batch", () => {
  it("no folio in two answers, and the folios used are exactly those answered, under retries, races, refusals and kill -9", {
    timeout: 90_000,
  }, async () => {
    const database = join(mkdtempSync(join(tmpdir(), "sii-gw-kill-")), "state.sqlite");
    const env = { ...process.env, HOST: "127.0.0.1", DATABASE_PATH: database, SII_UPSTREAM: "sandbox", DEV_API_TOKEN: KILL_TEST_TOKEN };
    const lease = { IDEMPOTENCY_LEASE_MS: String(KILL_TEST_LEASE_MS) };
    await killDuringBatch(
      (port) =>
        spawnGateway(process.execPath, ["--experimental-strip-types", "--no-warnings", "src/entry/node.ts"], {
          cwd: root,
          env: { ...env, ...lease, PORT: String(port) },
          ready: "Development API token",
          withinMs: 30_000,
        }),
      [freePort(), freePort()],
    );
  });
});
