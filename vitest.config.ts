import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
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
              },
            },
          }),
        ],
        test: { name: "workers", include: ["test/workers/**/*.test.ts", "test/shared/**/*.test.ts", "src/dte/**/*.test.ts"] },
      },
      {
        // Pure code, the Node entry (SQLite state) and the memory adapters.
        test: { name: "node", environment: "node", include: ["test/node/**/*.test.ts", "test/shared/**/*.test.ts", "src/**/*.test.ts"] },
      },
      {
        // The Lambda handler with API Gateway v2 events, and the DynamoDB adapter against a local server.
        test: { name: "lambda", environment: "node", include: ["test/lambda/**/*.test.ts"] },
      },
    ],
  },
});
