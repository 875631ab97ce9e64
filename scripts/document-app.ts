// The app the document scripts (`npm run schemas`, `npm run lint:openapi`) read the OpenAPI
// document from: memory stores, the sandbox, a fixed clock and no log, so the output is stable.

import { memoryStores } from "../src/adapters/memory/stores.ts";
import { createNodeWebhookSender } from "../src/adapters/node/webhook-sender.ts";
import { createApp } from "../src/app.ts";
import { configFromEnv } from "../src/config.ts";
import type { Deps } from "../src/ports/deps.ts";
import { sandboxTransport } from "../src/sandbox/transport.ts";

export function documentApp() {
  const deps: Deps = {
    ...memoryStores(),
    sii: sandboxTransport(),
    webhooks: createNodeWebhookSender(),
    clock: { now: () => new Date(0) },
    log: { log: () => {} },
    config: configFromEnv({}),
  };
  return createApp(() => deps);
}
