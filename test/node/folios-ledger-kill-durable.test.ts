// The folio ledger's property in Durable Objects (test/support/ledger-kill.ts has it and its invariant):
// `wrangler dev` (workerd) with its state persisted on disk, random calls, SIGKILL to wrangler and workerd
// together, and started again on the same directory.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "vitest";
import { freePort, KILL_TEST_LEASE_MS, KILL_TEST_TOKEN, killDuringBatch, spawnGateway } from "../support/ledger-kill.ts";

const root = join(import.meta.dirname, "..", "..");
const wrangler = join(root, "node_modules", "wrangler", "bin", "wrangler.js");

describe("folio ledger in Durable Objects (wrangler dev, state on disk), kill -9 in the middle of a batch", () => {
  it("no folio in two answers, and the folios used are exactly those answered, under retries, races, refusals and kill -9", {
    timeout: 120_000,
  }, async () => {
    const state = mkdtempSync(join(tmpdir(), "sii-gw-kill-do-"));
    const args = ["dev", "--ip", "127.0.0.1", "--persist-to", state, "--show-interactive-dev-session=false"];
    const vars = ["SII_UPSTREAM:sandbox", `DEV_API_TOKEN:${KILL_TEST_TOKEN}`, `IDEMPOTENCY_LEASE_MS:${KILL_TEST_LEASE_MS}`].flatMap((v) => [
      "--var",
      v,
    ]);
    // No metrics, and no fetch of the Request.cf placeholder: the test stays on loopback.
    const env = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };
    await killDuringBatch(
      (port) =>
        spawnGateway(process.execPath, [wrangler, ...args, "--port", String(port), ...vars], {
          cwd: root,
          env,
          ready: "Ready on",
          withinMs: 60_000,
        }),
      [freePort()],
    );
  });
});
