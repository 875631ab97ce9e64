import { z } from "@hono/zod-openapi";
import { parseProxyUrl } from "../../lib/address-policy.ts";
import { envelope } from "../../platform/schemas.ts";
import { businessRule } from "../../platform/validation.ts";

export const ProxySettings = z
  .object({
    enabled: z.boolean().register(z.globalRegistry, { description: "Whether this account's SII traffic goes through the proxy" }),
    url: z.string().nullable().register(z.globalRegistry, { example: "http://proxy.example.cl:3128" }),
    username: z.string().nullable(),
    password_set: z.boolean().register(z.globalRegistry, { description: "The password is never returned, only whether one is stored" }),
    updated_at: z.string().nullable().register(z.globalRegistry, { format: "date-time" }),
  })
  .openapi("ProxySettings");

/** A port 1 to 65535, written without leading zeros. */
const PORT = "(?:[1-9]\\d{0,3}|[1-5]\\d{4}|6[0-4]\\d{3}|65[0-4]\\d{2}|655[0-2]\\d|6553[0-5])";

/** `http(s)://host:port`, an optional final slash, nothing else (proxy.ts reads the same form). */
export const PROXY_URL_PATTERN = `^https?://(?:\\[[0-9a-fA-F:.]+\\]|[A-Za-z0-9.-]+):${PORT}/?$`;

/**
 * The rules between fields, for the document: `url` is required (not null) when `enabled` is true,
 * and a non-empty `password` needs a non-empty `username`. The server checks them in the
 * superRefine below; the agreement test holds the two together.
 */
const CONDITIONS = [
  {
    if: { properties: { enabled: { const: true } }, required: ["enabled"] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a thenable.
    then: { properties: { url: { type: "string", minLength: 1 } }, required: ["url"] },
  },
  {
    if: { properties: { password: { type: "string", minLength: 1 } }, required: ["password"] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword, not a thenable.
    then: { properties: { username: { type: "string", minLength: 1 } }, required: ["username"] },
  },
];

export const ProxySettingsInput = z
  .object({
    enabled: z
      .boolean()
      .register(z.globalRegistry, { description: "Whether this account's SII traffic goes through the proxy; `true` needs `url`" }),
    url: z
      .string()
      .max(300)
      .regex(new RegExp(PROXY_URL_PATTERN), {
        error: "must be http://host:port or https://host:port, with no path and no credentials (use username and password)",
        abort: true,
      })
      // What the pattern lets through but no URL parser reads (`[:0]`, `1.2.3.256`): a rule after the form, 400.
      .refine((url) => parseProxyUrl(url) !== null, businessRule("has a host that is no valid name or IP address"))
      .nullable()
      .optional()
      .meta({
        description:
          "`http://host:port` or `https://host:port` (port 1 to 65535), no path, no credentials; required when `enabled` is true. A host no URL parser reads (`[:0]`, `1.2.3.256`) is a 400, and so are loopback, private and link-local addresses unless the operator allows them (ALLOW_PRIVATE_PROXY)",
        example: "http://proxy.example.cl:3128",
      }),
    username: z
      .string()
      .max(200)
      .nullable()
      .optional()
      .register(z.globalRegistry, { description: "Proxy user; required with a non-empty `password`", example: "erp" }),
    password: z.string().max(500).nullable().optional().register(z.globalRegistry, {
      description: "Write-only, needs `username`. Omit to keep the stored one; `null` removes it",
      example: "s3cret",
    }),
  })
  .strict()
  .superRefine((input, ctx) => {
    if (input.enabled && !input.url) ctx.addIssue({ code: "custom", path: ["url"], message: "is required when enabled is true" });
    if (input.password && !input.username) ctx.addIssue({ code: "custom", path: ["username"], message: "is required with a password" });
  })
  .openapi("ProxySettingsInput", {
    allOf: CONDITIONS,
    example: { enabled: true, url: "http://proxy.example.cl:3128", username: "erp", password: "s3cret" },
  });

export const ProxySettingsEnvelope = envelope(ProxySettings);
