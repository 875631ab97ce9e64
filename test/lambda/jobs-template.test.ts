// template.yaml's jobs runner checked against the code it deploys: the same bundle and settings as the
// HTTP function, a handler the Lambda entry exports, run every minute, with room for its sweep.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import * as entry from "../../src/entry/lambda.ts";

const template = parse(readFileSync(join(import.meta.dirname, "..", "..", "template.yaml"), "utf8"));
const functions = Object.values(template.Resources as Record<string, { Type: string; Properties: Record<string, unknown> }>)
  .filter((r) => r.Type === "AWS::Serverless::Function")
  .map((r) => r.Properties);
const eventTypes = (fn: Record<string, unknown>) => Object.values(fn.Events as Record<string, { Type: string }>).map((e) => e.Type);
const gateway = functions.find((fn) => eventTypes(fn).includes("HttpApi"));
const sweep = functions.find((fn) => eventTypes(fn).includes("Schedule"));

describe("template.yaml's jobs runner", () => {
  it("is the HTTP function's bundle with its settings and table policy, on the entry's scheduled export", () => {
    expect(functions).toHaveLength(2);
    if (!gateway || !sweep) throw new Error("template.yaml lacks the HTTP or the scheduled function");
    expect(sweep.CodeUri).toBe(gateway.CodeUri);
    expect(sweep.Environment).toEqual(gateway.Environment);
    expect(sweep.Policies).toEqual(gateway.Policies);
    const [moduleName, exportName] = String(sweep.Handler).split(".");
    expect(moduleName).toBe(String(gateway.Handler).split(".")[0]);
    expect(exportName).toBe("scheduled");
    expect(typeof entry.scheduled).toBe("function");
  });

  it("runs every minute, with a timeout past the sweep's budget", () => {
    expect(eventTypes(sweep!)).toEqual(["Schedule"]);
    const [schedule] = Object.values(sweep!.Events as Record<string, { Properties: { Schedule: string } }>);
    expect(schedule?.Properties.Schedule).toBe("rate(1 minute)");
    expect(Number(sweep!.Timeout) * 1000).toBeGreaterThan(entry.SWEEP_MS);
  });
});
