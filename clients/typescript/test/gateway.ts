// The client against the gateway with its sandbox, in process: the client's fetch is the app's, the
// retries' sleeps are recorded rather than waited, and every request sent is kept for the test to read.
import { createApp } from "../../../src/app.ts";
import { testDeps, tokenFor } from "../../../test/support/app.ts";
import { createGatewayClient } from "../src/index.ts";

export async function gateway(plan?: { daily_units: number; monthly_units: number }) {
  const { deps } = testDeps();
  const app = createApp(() => deps);
  const { secret } = await tokenFor(deps, plan ? { plan } : {});
  const sleeps: number[] = [];
  const sent: Request[] = [];
  const fetch = async (request: Request) => {
    sent.push(request.clone());
    return app.fetch(request);
  };
  const client = createGatewayClient({
    baseUrl: "http://127.0.0.1",
    token: secret,
    fetch,
    retry: { maxWaitSeconds: 600, sleep: async (ms) => void sleeps.push(ms) },
  });
  return { client, sleeps, sent, fetch, deps };
}
