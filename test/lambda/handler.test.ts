// The Lambda handler fed API Gateway v2 events, with its state in DynamoDB (a local
// DynamoDB-compatible server on loopback).
import { beforeAll, describe, expect, it } from "vitest";
import { createLambdaHandler } from "../../src/entry/lambda.ts";
import { ErrorBody } from "../../src/platform/schemas.ts";
import { CreatedTokenEnvelope } from "../../src/routes/admin/schema.ts";
import { UsageEnvelope } from "../../src/routes/usage/get.ts";
import { answerIn } from "../support/answers.ts";
import { localDynamoDb } from "../support/local-dynamodb.ts";

const local = localDynamoDb("sii-gateway-test");
let handler: ReturnType<typeof createLambdaHandler>;
const devToken = "sii_dev_lambda_test";

beforeAll(() => {
  handler = createLambdaHandler({
    ...local.env(),
    ADMIN_TOKEN: "lambda-admin-token-of-at-least-32-chars",
    DEV_API_TOKEN: devToken,
  });
});

function event(method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  return {
    version: "2.0",
    routeKey: "$default",
    rawPath: path,
    rawQueryString: "",
    headers: { host: "abc.execute-api.us-east-1.amazonaws.com", ...headers },
    requestContext: {
      accountId: "123456789012",
      apiId: "abc",
      // An API without an authorizer: the event type has both fields, empty.
      authentication: null,
      authorizer: {},
      domainName: "abc.execute-api.us-east-1.amazonaws.com",
      domainPrefix: "abc",
      http: { method, path, protocol: "HTTP/1.1", sourceIp: "127.0.0.1", userAgent: "vitest" },
      requestId: "r1",
      routeKey: "$default",
      stage: "$default",
      time: "22/Nov/2026:12:00:00 +0000",
      timeEpoch: 1795000000000,
    },
    body: body ?? null,
    isBase64Encoded: false,
  };
}

async function invoke(method: string, path: string, headers?: Record<string, string>, body?: string) {
  const result = await handler(event(method, path, headers, body));
  return { status: result.statusCode, headers: result.headers, body: result.body };
}

describe("lambda handler", () => {
  it("serves the development token seeded in DynamoDB", async () => {
    const res = await invoke("GET", "/api/v1/usage", { "x-api-token": devToken, origin: "https://app.example.cl" });
    expect(res.status).toBe(200);
    expect(answerIn(res.body, UsageEnvelope).data.account).toBe("development");
    expect(res.headers["x-request-id"]).toMatch(/^req_/);
    // The security headers on this entry too, no banner, and CORS off without CORS_ORIGINS.
    const headers = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k.toLowerCase(), v]));
    expect([headers["x-content-type-options"], headers["cache-control"]]).toEqual(["nosniff", "no-store"]);
    expect(Object.keys(headers).filter((h) => h === "server" || h === "x-powered-by" || h.startsWith("access-control-"))).toEqual([]);
  });

  it("issues a token through the admin API, and answers with the envelope on auth failures and unknown routes", async () => {
    const created = await invoke(
      "POST",
      "/admin/v1/tokens",
      { authorization: "Bearer lambda-admin-token-of-at-least-32-chars", "content-type": "application/json" },
      JSON.stringify({ name: "l", account: "acme", scopes: ["sii:read"], plan: { daily_units: 2, monthly_units: 5 } }),
    );
    expect(created.status).toBe(201);
    const usage = await invoke("GET", "/api/v1/usage", { "x-api-token": answerIn(created.body, CreatedTokenEnvelope).data.token });
    expect(usage.status).toBe(200);
    expect(usage.headers["x-ratelimit-limit"]).toBe("2");

    const missing = await invoke("GET", "/api/v1/usage");
    expect([missing.status, answerIn(missing.body, ErrorBody).error_code]).toEqual([401, "HTTP_401"]);
    const unknown = await invoke("GET", "/api/v1/nothing", { "x-api-token": devToken });
    expect([unknown.status, answerIn(unknown.body, ErrorBody).error_code]).toEqual([404, "HTTP_404"]);
  });
});
