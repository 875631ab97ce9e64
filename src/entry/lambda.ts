// AWS Lambda entry (API Gateway v2 / function URLs): the same app, state in DynamoDB.
import { handle } from "hono/aws-lambda";
import { createDynamoStores } from "../adapters/lambda/dynamodb-stores.ts";
import { memorySessionStore } from "../adapters/memory/sessions.ts";
import { nodeTransport } from "../adapters/node/transport.ts";
import { createApp } from "../app.ts";
import { configFromEnv, consoleLogger, systemClock } from "../config.ts";
import { seedDevToken } from "../platform/tokens.ts";
import type { Deps } from "../ports/deps.ts";
import { sandboxTransport } from "../sandbox/transport.ts";

export async function createLambdaDeps(env: Record<string, string | undefined>): Promise<Deps> {
  // A function is reachable from outside: the sandbox's built-in key is published in the source.
  if (!env.SECRET_KEY) throw new Error("Lambda needs SECRET_KEY (at least 32 characters), in sandbox mode too");
  const config = configFromEnv(env);
  const table = env.DYNAMODB_TABLE;
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  if (!table || !region || !env.AWS_ACCESS_KEY_ID || !env.AWS_SECRET_ACCESS_KEY) {
    throw new Error("Lambda needs DYNAMODB_TABLE, AWS_REGION and AWS credentials in its environment");
  }
  const stores = createDynamoStores({
    table,
    region,
    endpoint: env.DYNAMODB_ENDPOINT,
    accessKeyId: env.AWS_ACCESS_KEY_ID,
    secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
    sessionToken: env.AWS_SESSION_TOKEN,
  });
  // SII sessions are a per-instance cache here: a cold instance logs in again.
  const deps: Deps = {
    ...stores,
    sessions: memorySessionStore(),
    sii: config.upstream === "sandbox" ? sandboxTransport() : nodeTransport({ allowPrivateProxy: config.allowPrivateProxy }),
    clock: systemClock,
    log: consoleLogger,
    config,
  };
  if (config.devToken) await seedDevToken(deps.tokens, config.devToken, deps.clock.now());
  return deps;
}

export function createLambdaHandler(env: Record<string, string | undefined>) {
  let deps: Promise<Deps> | undefined;
  const app = createApp(() => {
    deps ??= createLambdaDeps(env).catch((err: unknown) => {
      // A refused configuration says why in the log; the cold start's answer is a bare 500.
      consoleLogger.log({ level: "error", msg: "configuration refused", error: err instanceof Error ? err.message : String(err) });
      throw err;
    });
    return deps;
  });
  return handle(app);
}

export const handler = createLambdaHandler(process.env);
