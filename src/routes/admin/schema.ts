import { z } from "@hono/zod-openapi";
import { envelope } from "../../platform/schemas.ts";
import { ALL_SCOPES } from "../../ports/access.ts";
import { Plan, Usage } from "../plan-usage.ts";

// The plan and usage shapes the usage operation shares: src/routes/plan-usage.ts.
export { Plan, Usage };

export const TokenInput = z
  .object({
    name: z.string().regex(/\S/, { error: "must not be blank" }).trim().min(1).max(100).register(z.globalRegistry, {
      description: "A label for your records, 1 to 100 characters (not blank; trimmed)",
      example: "erp-production",
    }),
    account: z
      .string()
      .max(64)
      .regex(/^[A-Za-z0-9._-]{1,64}$/, { error: "1 to 64 letters, digits, dots, hyphens or underscores" })
      .register(z.globalRegistry, {
        description:
          "The account the token belongs to: tokens of one account share its settings (the proxy); 1 to 64 letters, digits, `.`, `-`, `_`",
        example: "acme",
      }),
    scopes: z
      .array(z.enum(ALL_SCOPES))
      .min(1)
      .transform((s) => [...new Set(s)])
      .register(z.globalRegistry, {
        description: "What the token may call (at least one; repeats are ignored)",
        example: ["sii:read", "sii:write"],
      }),
    plan: Plan.default({ daily_units: 1000, monthly_units: 20000 }).meta({
      description: "Units per UTC day and per UTC month (default 1000 and 20000)",
    }),
  })
  .openapi("TokenInput");

export const Token = z
  .object({
    id: z.string().register(z.globalRegistry, { example: "tok_3f2a9c1d0b7e6a54" }),
    name: z.string(),
    account: z.string(),
    scopes: z.array(z.enum(ALL_SCOPES)),
    plan: Plan,
    blocked: z.boolean(),
    created_at: z.string().register(z.globalRegistry, { format: "date-time" }),
    hint: z.string().register(z.globalRegistry, { description: "Last four characters of the secret" }),
  })
  .openapi("Token");

export const TokenId = z.object({
  // Ids are `tok_` and letters, digits, `_` or `-` (platform/tokens.ts, the dev token's `tok_development`):
  // a `.` or `..` would be a dot segment, which URLs resolve away before any route sees it.
  id: z
    .string()
    .max(64)
    .regex(/^tok_[A-Za-z0-9_-]{1,60}$/, "must be a token id, tok_ and 1 to 60 letters, digits, _ or -")
    .openapi({
      param: { name: "id", in: "path" },
      description: "The token's id (`tok_…`, as issued; not its secret): `tok_` and 1 to 60 letters, digits, `_` or `-`",
      example: "tok_3f2a9c1d0b7e6a54",
    }),
});

export const CreatedTokenEnvelope = envelope(
  Token.extend({ token: z.string().register(z.globalRegistry, { description: "The secret: shown only here" }) }),
);
export const TokenEnvelope = envelope(Token);
export const TokenWithUsageEnvelope = envelope(Token.extend({ usage: Usage }));
export const TokenListEnvelope = envelope(z.object({ tokens: z.array(Token) }));
