// The folio ledger on SQLite survives a kill -9 in the middle of a batch: `npm start` on a SQLite
// file, killed and started again on the same file (test/support/ledger-kill.ts has the case).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "vitest";
import { freePort, KILL_TEST_TOKEN, killDuringBatch, spawnGateway } from "../support/ledger-kill.ts";

const root = join(import.meta.dirname, "..", "..");

describe("folio ledger on SQLite, kill -9 in the middle of a batch", () => {
  it("loses no folio and doubles none: answered, recorded as allocated (retrievable by key) or free", { timeout: 30_000 }, async () => {
    const database = join(mkdtempSync(join(tmpdir(), "sii-gw-kill-")), "state.sqlite");
    const env = { ...process.env, HOST: "127.0.0.1", DATABASE_PATH: database, SII_UPSTREAM: "sandbox", DEV_API_TOKEN: KILL_TEST_TOKEN };
    await killDuringBatch(
      (port) =>
        spawnGateway(process.execPath, ["--experimental-strip-types", "--no-warnings", "src/entry/node.ts"], {
          cwd: root,
          env: { ...env, PORT: String(port) },
          ready: "Development API token",
          withinMs: 10_000,
        }),
      freePort(),
    );
  });
});
