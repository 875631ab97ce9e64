import { availableParallelism } from "node:os";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// `npm run test:rough` (scripts/test-rough.mjs) sets the rough sandbox's seed; every project's setup reads it.
const roughSeed: Record<string, string> = process.env.SANDBOX_ROUGH_SEED ? { SANDBOX_ROUGH_SEED: process.env.SANDBOX_ROUGH_SEED } : {};
const setupFiles = ["test/support/rough-setup.ts"];
// A timeout catches a hang, not slowness: the suite passes on a machine whose cores are busy, where a
// test may take several times what it takes alone.
const timeouts = { testTimeout: 60_000, hookTimeout: 120_000 };
// Tests say what they pin: where the sandbox answers in a shape the client also had to guess (no public
// capture of that SII answer or request), the test proves the gateway's logic, not the SII's wire format.
// `npx vitest --tags-filter=inferred-sii-shape` lists them; an undeclared tag is an error.
const tags = [
  {
    name: "inferred-sii-shape",
    description: "Sandbox and client share an inferred SII shape: pins gateway logic, not the wire format.",
  },
];

/** The unit tests beside the code (`src/**`); `SKIP_UNIT_TESTS=1` leaves them out (the rough pass: pure code meets no sandbox). */
const unit = (globs: string[]) => (process.env.SKIP_UNIT_TESTS === "1" ? [] : globs);
/**
 * The node files that take the most time (the largest inputs, the fuzzer, the kill properties, every
 * operation's example, the fault matrix, the live check's process, the client generators):
 * `QUICK_TESTS=1` (`npm run test:quick`) leaves them out, for a run of the rest in a minute or two.
 */
const slow = [
  "test/node/big-envelopes*.test.ts",
  "test/node/fuzz.test.ts",
  "test/node/live-check.test.ts",
  "test/node/openapi-examples.test.ts",
  "test/node/openapi-generators.test.ts",
  "test/node/fault-matrix.test.ts",
  "test/node/folios-ledger-kill*.test.ts",
  "test/node/dte-generate.test.ts",
  "test/node/idempotency-answers.test.ts",
  "test/node/reading-fee.test.ts",
  "test/node/hostile-*.test.ts",
  "src/dte/xml/parse.test.ts",
];
const quick = process.env.QUICK_TESTS === "1" ? slow : [];
/** Node test files that replace a module with `vi.mock`: they need a fresh module graph. */
const mocking = ["test/node/generar-stopped.test.ts"];

export default defineConfig({
  test: {
    // Files in parallel on every core (vitest leaves one free by default: one file at a time on 2 cores).
    maxWorkers: availableParallelism(),
    projects: [
      {
        // The Worker entry in workerd, with real KV and Durable Objects from miniflare.
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            // The tests' host is not loopback: the sandbox runs there only with a SECRET_KEY of its own.
            miniflare: {
              bindings: {
                ADMIN_TOKEN: "test-admin-token-of-at-least-32-characters",
                SII_UPSTREAM: "sandbox",
                SECRET_KEY: "workers-test-secret-key-0123456789abcdef",
                ...roughSeed,
              },
            },
          }),
        ],
        test: {
          name: "workers",
          ...timeouts,
          setupFiles,
          tags,
          include: [
            "test/workers/**/*.test.ts",
            "test/shared/**/*.test.ts",
            ...unit(["src/dte/**/*.test.ts", "src/certificates/**/*.test.ts"]),
          ],
        },
      },
      {
        // Pure code, the Node entry (SQLite state) and the memory adapters. The files share one module
        // graph per worker (not isolated): each built the whole gateway anew, about half the project's
        // time, and none relies on a module's state being fresh. What replaces a module runs apart.
        test: {
          name: "node",
          environment: "node",
          isolate: false,
          ...timeouts,
          setupFiles,
          tags,
          include: [
            "test/node/**/*.test.ts",
            "test/shared/**/*.test.ts",
            "clients/typescript/test/**/*.test.ts",
            ...unit(["src/**/*.test.ts"]),
          ],
          exclude: [...mocking, ...quick],
        },
      },
      {
        // Node files that replace a module (`vi.mock`), each in a module graph of its own.
        test: { name: "node-mocked", environment: "node", ...timeouts, setupFiles, tags, include: mocking },
      },
      {
        // The Lambda handler with API Gateway v2 events, and the DynamoDB adapter against a local server.
        test: { name: "lambda", environment: "node", ...timeouts, setupFiles, tags, include: ["test/lambda/**/*.test.ts"] },
      },
    ],
  },
});
