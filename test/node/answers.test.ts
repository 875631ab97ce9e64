// The typed reads the tests use (test/support/answers.ts) check each answer against its schema: an
// answer with a field its schema does not declare, or a field of another type, fails the read.
import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { envelope } from "../../src/platform/schemas.ts";
import { answerOf, errorOf, valueAt } from "../support/answers.ts";

const Answer = envelope(z.object({ n: z.number() }));
const json = (value: unknown, status = 200) => new Response(JSON.stringify(value), { status });
const ok = { success: true, message: "OK", data: { n: 1 }, timestamp: "2026-01-15T12:00:00.000Z" };

describe("typed answers", () => {
  it("gives the answer its schema describes", async () => {
    expect((await answerOf(json(ok), Answer)).data.n).toBe(1);
  });

  it("refuses a field of another type, naming it and the status", async () => {
    await expect(answerOf(json({ ...ok, data: { n: "1" } }, 201), Answer)).rejects.toThrow(/HTTP 201: .*data\.n/);
  });

  it("refuses a field the schema does not declare, which zod alone would drop", async () => {
    await expect(answerOf(json({ ...ok, data: { n: 1, extra: true } }), Answer)).rejects.toThrow(/only fields its schema declares/);
  });

  it("reads a refusal as the error envelope, and nothing else as one", async () => {
    const refusal = { success: false, error_code: "HTTP_404", message: "No", request_id: "req_1", timestamp: ok.timestamp };
    expect((await errorOf(json(refusal, 404))).error_code).toBe("HTTP_404");
    await expect(errorOf(json(ok))).rejects.toThrow(/does not match its schema/);
  });

  it("reads an open part by own fields only", () => {
    const open = JSON.parse('{"a":[{"b":2}],"__proto__":{"c":3}}');
    expect([valueAt(open, "a", 0, "b"), valueAt(open, "__proto__", "c"), valueAt(open, "constructor")]).toEqual([2, 3, undefined]);
  });
});
