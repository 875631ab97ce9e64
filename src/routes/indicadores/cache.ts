// Published indicators never change: a year whose page is complete is cached for good; a year
// still being published is re-read at most hourly.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../platform/context.ts";

export const REREAD_MS = 60 * 60 * 1000;

export async function cachedYear<T>(
  c: Context<AppEnv>,
  key: string,
  load: () => Promise<T | null>,
  complete: (value: T) => boolean,
): Promise<T | null> {
  const { cache, clock } = c.var.deps;
  const hit = await cache.get(key, clock.now());
  if (hit !== null) return JSON.parse(hit) as T | null;
  const value = await load();
  await cache.put(key, JSON.stringify(value), clock.now(), value !== null && complete(value) ? undefined : REREAD_MS);
  return value;
}

/** A whole-number path parameter within a range (years, months, days). */
export const int = (name: string, min: number, max: number, example: number) =>
  z.coerce
    .number({ error: "must be a number" })
    .int({ error: "must be a whole number" })
    .min(min, { error: `must be ${min} to ${max}` })
    .max(max, { error: `must be ${min} to ${max}` })
    .openapi({ param: { name, in: "path" }, type: "integer", example });
