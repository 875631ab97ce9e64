// zod failures to the error envelope: path and query problems are 400, body problems 422,
// each field named in `errors[]`.
import type { Context } from "hono";
import type { z } from "zod";
import { ApiError, type FieldError } from "./errors.ts";

type Target = "json" | "form" | "query" | "param" | "header" | "cookie";

const locations: Record<Target, FieldError["location"]> = {
  json: "body",
  form: "body",
  query: "query",
  param: "path",
  header: "header",
  cookie: "header",
};

function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type" && /received undefined/.test(issue.message)) return "is required";
  return issue.message;
}

export function fieldErrors(error: z.ZodError, target: Target): FieldError[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join("."),
    location: locations[target],
    message: describe(issue),
  }));
}

export function validationHook(result: { success: boolean; error?: z.ZodError; target: Target }, _c: Context): void {
  if (result.success || !result.error) return;
  const errors = fieldErrors(result.error, result.target);
  const names = errors.map((e) => e.path || e.location).join(", ");
  if (result.target === "json" || result.target === "form") {
    throw new ApiError(422, "VALIDATION_ERROR", `The request body is invalid: ${names}`, { errors });
  }
  throw new ApiError(400, "VALIDATION_ERROR", `Invalid ${result.target === "param" ? "path" : result.target} parameters: ${names}`, {
    errors,
  });
}
