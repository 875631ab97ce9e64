import { z } from "@hono/zod-openapi";
import { envelope } from "../../platform/schemas.ts";

export const ProxySettings = z
  .object({
    enabled: z.boolean().openapi({ description: "Whether this account's SII traffic goes through the proxy" }),
    url: z.string().nullable().openapi({ example: "http://proxy.example.cl:3128" }),
    username: z.string().nullable(),
    password_set: z.boolean().openapi({ description: "The password is never returned, only whether one is stored" }),
    updated_at: z.string().nullable().openapi({ format: "date-time" }),
  })
  .openapi("ProxySettings");

export const ProxySettingsInput = z
  .object({
    enabled: z.boolean(),
    url: z
      .string()
      .max(300)
      .nullable()
      .optional()
      .openapi({ description: "`http://host:port` or `https://host:port`", example: "http://proxy.example.cl:3128" }),
    username: z.string().max(200).nullable().optional(),
    password: z
      .string()
      .max(500)
      .nullable()
      .optional()
      .openapi({ description: "Write-only. Omit to keep the stored one; `null` removes it", example: "s3cret" }),
  })
  .strict()
  .openapi("ProxySettingsInput", { example: { enabled: true, url: "http://proxy.example.cl:3128", username: "erp", password: "s3cret" } });

export const ProxySettingsEnvelope = envelope(ProxySettings);
