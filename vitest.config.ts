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
            miniflare: { bindings: { ADMIN_TOKEN: "test-admin-token", SII_UPSTREAM: "sandbox" } },
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
