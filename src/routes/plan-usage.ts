// A token's plan and its usage windows: shown by the admin operations and by the usage operation,
// so a routes' shared module.
import { z } from "@hono/zod-openapi";

export const Plan = z
  .object({
    daily_units: z
      .number()
      .int()
      .min(0)
      .max(1e9)
      .register(z.globalRegistry, { description: "Units per UTC day, 0 to 10^9", example: 1000 }),
    monthly_units: z
      .number()
      .int()
      .min(0)
      .max(1e10)
      .register(z.globalRegistry, { description: "Units per UTC month, 0 to 10^10", example: 20000 }),
  })
  .openapi("Plan");

const Window = z.object({
  used: z.number().int(),
  limit: z.number().int(),
  remaining: z.number().int(),
  resets_at: z.string().register(z.globalRegistry, { format: "date-time" }),
});

export const Usage = z.object({ daily: Window, monthly: Window }).openapi("Usage");
