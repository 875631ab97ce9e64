// A child process for the kill -9 test on DynamoDB: the gateway with the Lambda entry's deps (the
// DynamoDB stores, DYNAMODB_* and AWS_* from the environment) served over HTTP on 127.0.0.1:PORT,
// as a Lambda instance would serve it, so it can be killed mid-request and started again.
import { createAdaptorServer } from "@hono/node-server";
import { createApp } from "../../src/app.ts";
import { createLambdaDeps } from "../../src/entry/lambda.ts";

const deps = await createLambdaDeps(process.env);
const server = createAdaptorServer({ fetch: createApp(() => deps).fetch });
server.listen(Number(process.env.PORT), "127.0.0.1", () => console.log("gateway on DynamoDB listening"));
