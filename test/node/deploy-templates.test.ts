// The deployment files checked against the code they deploy: the SAM template (the bundle it
// points at exists and answers, the table is the one the DynamoDB adapter writes, every setting
// the Lambda entry reads is set, secrets come only from Secrets Manager) and the Dockerfile
// (read statically: no Docker engine is needed to run this).
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { parse } from "yaml";
import { z } from "zod";
import { createDynamoStores, createDynamoTable } from "../../src/adapters/lambda/dynamodb-stores.ts";

const root = join(import.meta.dirname, "..", "..");
const read = (file: string) => readFileSync(join(root, file), "utf8");

const Str = z.string();
/** A value or an intrinsic function (long form: the template keeps to plain YAML). */
const Value = z.union([Str, z.record(z.string().regex(/^(Ref|Fn::\w+)$/), z.unknown())]);
const Template = z.object({
  AWSTemplateFormatVersion: z.literal("2010-09-09"),
  Transform: z.literal("AWS::Serverless-2016-10-31"),
  Parameters: z.record(z.string(), z.object({ Type: Str, Default: Str.optional(), NoEcho: z.boolean().optional() }).loose()),
  Globals: z.object({ Function: z.record(z.string(), z.unknown()) }).optional(),
  Resources: z.record(z.string(), z.object({ Type: Str, Properties: z.record(z.string(), z.unknown()) }).loose()),
});
const FunctionProps = z.object({
  CodeUri: Str,
  Handler: z.string().regex(/^[\w-]+\.\w+$/),
  Runtime: Str.optional(),
  Timeout: z.number().int().max(30),
  Environment: z.object({ Variables: z.record(z.string(), Value) }),
  Policies: z.array(z.unknown()),
  Events: z.record(z.string(), z.object({ Type: Str, Properties: z.unknown().optional() })),
});
const TableProps = z.object({
  BillingMode: Str,
  AttributeDefinitions: z.array(z.object({ AttributeName: Str, AttributeType: Str })),
  KeySchema: z.array(z.object({ AttributeName: Str, KeyType: Str })),
  TimeToLiveSpecification: z.object({ AttributeName: Str, Enabled: z.literal(true) }),
});

const template = Template.parse(parse(read("template.yaml")));
const resourcesOf = (type: string) => Object.entries(template.Resources).filter(([, r]) => r.Type === type);
/** The HTTP function (the one an HttpApi event reaches) and the others (the jobs' scheduled sweep). */
const functions = resourcesOf("AWS::Serverless::Function");
const eventTypes = ([, r]: (typeof functions)[number]) =>
  Object.values((r.Properties as { Events?: Record<string, { Type: string }> }).Events ?? {}).map((e) => e.Type);
const functionEntry = functions.find((entry) => eventTypes(entry).includes("HttpApi"));
const otherFunctions = functions.filter((entry) => entry !== functionEntry);
const [tableEntry, ...otherTables] = resourcesOf("AWS::DynamoDB::Table");
if (!functionEntry || !tableEntry) throw new Error("template.yaml has no function or no table");
const fn = FunctionProps.parse(functionEntry[1].Properties);
const table = TableProps.parse(tableEntry[1].Properties);
const variables = fn.Environment.Variables;

/** Set by the Lambda runtime itself, and reserved: a template may not set them (AWS Lambda developer guide, "Defined runtime environment variables"). */
const LAMBDA_RUNTIME = ["AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"];
/** Read by the entry but meant to stay unset in AWS: a local DynamoDB-compatible server's address. */
const LOCAL_ONLY = ["DYNAMODB_ENDPOINT"];

/** `env.NAME` and `text(env, "NAME")` reads in a source file. */
function envReads(file: string): string[] {
  const source = read(file);
  const names = [...source.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g), ...source.matchAll(/text\(env, "([A-Z][A-Z0-9_]+)"\)/g)].map(
    (m) => m[1] ?? "",
  );
  return [...new Set(names)].sort();
}

describe("template.yaml (AWS SAM)", () => {
  it("has one function on Node 22 behind an HTTP API, one on a schedule only (test/lambda/jobs-template.test.ts), and one table", () => {
    expect(otherFunctions.map(eventTypes)).toEqual([["Schedule"]]);
    expect(otherTables).toEqual([]);
    expect(fn.Runtime ?? template.Globals?.Function.Runtime).toBe("nodejs22.x");
    expect(Object.values(fn.Events).map((e) => e.Type)).toEqual(["HttpApi"]);
  });

  it("builds with npm run build:lambda into the module its Handler names, which answers an HTTP API event", {
    timeout: 120_000,
  }, async () => {
    const pkg = JSON.parse(read("package.json"));
    expect(pkg.scripts["build:lambda"]).toBe("node scripts/build-lambda.mjs");
    const [moduleName, exportName] = fn.Handler.split(".") as [string, string];
    const bundle = join(root, fn.CodeUri, `${moduleName}.mjs`);
    await run(process.execPath, ["scripts/build-lambda.mjs"], {}, 90_000);
    expect(existsSync(bundle)).toBe(true);
    expect(read(".gitignore").split("\n")).toContain(`${fn.CodeUri.replace(/\/?$/, "/")}`);

    // Imported once, in a plain Node process (as the Lambda runtime does), and sent GET /healthz.
    const probe = `
      const mod = await import(${JSON.stringify(new URL(`file://${bundle}`).href)});
      const event = { version: "2.0", routeKey: "$default", rawPath: "/healthz", rawQueryString: "", headers: { host: "x.execute-api.sa-east-1.amazonaws.com" },
        requestContext: { http: { method: "GET", path: "/healthz", protocol: "HTTP/1.1", sourceIp: "127.0.0.1", userAgent: "t" }, requestId: "r", routeKey: "$default", stage: "$default", domainName: "x.execute-api.sa-east-1.amazonaws.com" },
        isBase64Encoded: false };
      const res = await mod[${JSON.stringify(exportName)}](event, {});
      console.log(JSON.stringify({ status: res.statusCode, body: JSON.parse(res.body) }));`;
    const out = await run(
      process.execPath,
      ["--input-type=module", "-e", probe],
      {
        SII_UPSTREAM: "sandbox",
        SECRET_KEY: "bundle-test-secret-key-0123456789abcdef",
        DYNAMODB_TABLE: "unused-by-healthz",
        AWS_REGION: "sa-east-1",
        AWS_ACCESS_KEY_ID: "AKIDEXAMPLE",
        AWS_SECRET_ACCESS_KEY: "not-a-real-secret",
      },
      30_000,
    );
    const answer = JSON.parse(out.trim().split("\n").at(-1) ?? "{}");
    expect(answer).toMatchObject({ status: 200, body: { success: true, data: { status: "ok", mode: "sandbox" } } });
  });

  it("creates the table the DynamoDB adapter creates, with the TTL on the attribute it writes", async () => {
    const calls: { target: string; body: Record<string, unknown> }[] = [];
    vi.stubGlobal("fetch", async (input: Request | string, init?: RequestInit) => {
      const request = new Request(input, init);
      const target = request.headers.get("x-amz-target")?.split(".")[1] ?? "";
      calls.push({ target, body: JSON.parse(await request.text()) });
      if (target === "DescribeTable") return Response.json({ Table: { TableStatus: "ACTIVE" } });
      if (target === "UpdateItem") return Response.json({ Attributes: {} });
      return Response.json({});
    });
    const config = { table: "t", region: "sa-east-1", accessKeyId: "AKIDEXAMPLE", secretAccessKey: "x" };
    await createDynamoTable(config, 1_000);
    const create = calls.find((c) => c.target === "CreateTable")?.body;
    expect(table.KeySchema).toEqual(create?.KeySchema);
    expect(table.AttributeDefinitions).toEqual(create?.AttributeDefinitions);
    expect(table.BillingMode).toBe(create?.BillingMode);

    // A quota count is the adapter's main write: it sets the attribute the TTL must be on.
    const plan = { daily_units: 10, monthly_units: 100 };
    await createDynamoStores(config).quota.consume("tok_1", 1, plan, new Date());
    const update = calls.find((c) => c.target === "UpdateItem")?.body;
    expect(String(update?.UpdateExpression)).toContain(`SET ${table.TimeToLiveSpecification.AttributeName} = `);
  });

  it("sets every setting the Lambda entry reads, except those the runtime sets and the local-only endpoint", () => {
    const reads = envReads("src/entry/lambda.ts");
    expect(reads).toContain("SECRET_KEY");
    for (const name of reads) {
      if (LAMBDA_RUNTIME.includes(name) || LOCAL_ONLY.includes(name)) continue;
      expect(variables, `template sets ${name}`).toHaveProperty(name);
    }
    for (const name of LAMBDA_RUNTIME) expect(variables, `${name} is reserved`).not.toHaveProperty(name);
    // Nothing set that the code does not read (a misspelt name would pass silently otherwise).
    const known = new Set([...reads, ...envReads("src/config.ts"), "NODE_OPTIONS"]);
    for (const name of Object.keys(variables)) expect(known.has(name), `${name} is read by the code`).toBe(true);
    expect(variables.SII_UPSTREAM).toEqual({ Ref: "Upstream" });
    expect(template.Parameters.Upstream?.Default).toBe("live");
    expect(variables.DYNAMODB_TABLE).toEqual({ Ref: tableEntry[0] });
  });

  it("takes SECRET_KEY and ADMIN_TOKEN only from Secrets Manager, never from a parameter", () => {
    for (const name of ["SECRET_KEY", "ADMIN_TOKEN"]) {
      const value = variables[name];
      const text = typeof value === "string" ? value : (value as Record<string, unknown>)["Fn::Sub"];
      expect(typeof text, name).toBe("string");
      expect(text, name).toMatch(new RegExp(`^\\{\\{resolve:secretsmanager:(\\$\\{\\w+\\}|[\\w/+=.@-]+):SecretString:${name}\\}\\}$`));
    }
    // Parameters name where secrets are; none holds or defaults to one.
    for (const [name, parameter] of Object.entries(template.Parameters)) {
      expect(name, "a parameter named as a secret value").not.toMatch(/^(SecretKey|AdminToken|Password|EgressSecret)$/i);
      expect(parameter.Default?.length ?? 0, `${name}'s default`).toBeLessThan(32);
    }
  });

  it("lets the function read and write its table, Scan included (token listing)", () => {
    expect(fn.Policies).toContainEqual({ DynamoDBCrudPolicy: { TableName: { Ref: tableEntry[0] } } });
  });
});

describe("Dockerfile", () => {
  const lines = read("Dockerfile")
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  const instructions = lines.map((line) => {
    const [keyword = "", ...rest] = line.split(/\s+/);
    return { keyword: keyword.toUpperCase(), args: rest.join(" ") };
  });
  const all = (keyword: string) => instructions.filter((i) => i.keyword === keyword).map((i) => i.args);
  const last = (keyword: string) => all(keyword).at(-1) ?? "";

  it("builds on Node 22 and runs as a user other than root", () => {
    const bases = all("FROM");
    expect(bases.length).toBeGreaterThan(0);
    for (const base of bases) expect(base).toMatch(/^node:22([.-]|$)/);
    const user = last("USER");
    expect(user).not.toBe("");
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    // USER comes after the last RUN that installs: the server itself never runs as root.
    const userIndex = instructions.findLastIndex((i) => i.keyword === "USER");
    expect(instructions.findIndex((i) => i.keyword === "CMD")).toBeGreaterThan(userIndex);
  });

  it("installs production dependencies only, from the lockfile", () => {
    expect(all("RUN").some((run) => /\bnpm ci\b.*--omit=dev/.test(run))).toBe(true);
    expect(all("COPY").some((copy) => copy.includes("package-lock.json"))).toBe(true);
  });

  it("starts with package.json's start command and listens on every interface", () => {
    const start = JSON.parse(read("package.json")).scripts.start as string;
    expect(JSON.parse(last("CMD"))).toEqual(start.split(" "));
    expect(all("ENV").join(" ")).toMatch(/\bHOST=0\.0\.0\.0\b/);
    // Every source path the command names is copied into the image.
    const entry = start.split(" ").at(-1) ?? "";
    expect(all("COPY").some((copy) => entry.startsWith(copy.split(/\s+/)[0] ?? "-"))).toBe(true);
  });

  it("checks its health on /healthz", () => {
    const check = last("HEALTHCHECK");
    expect(check).toMatch(/\bCMD\b/);
    expect(check).toContain("/healthz");
  });

  it("keeps local state, secrets and installed modules out of the build context", () => {
    const ignored = read(".dockerignore")
      .split("\n")
      .map((line) => line.trim());
    for (const entry of ["node_modules", ".data", ".dev.vars", "*.sqlite", ".git"]) expect(ignored).toContain(entry);
  });
});

afterEach(() => {
  vi.unstubAllGlobals();
});

beforeAll(() => {
  expect(existsSync(join(root, "scripts", "build-lambda.mjs"))).toBe(true);
});

function run(command: string, args: string[], env: Record<string, string>, timeout: number): Promise<string> {
  return new Promise((resolve, reject) => {
    // Only these variables: nothing from the outer environment changes what the bundle does.
    const options = {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", ...env } as unknown as NodeJS.ProcessEnv,
      timeout,
      encoding: "utf8" as const,
    };
    execFile(command, args, options, (error: Error | null, stdout: string, stderr: string) => {
      if (error) reject(new Error(`${command} ${args[0]} failed: ${stderr.slice(-2000) || error.message}`));
      else resolve(stdout);
    });
  });
}
