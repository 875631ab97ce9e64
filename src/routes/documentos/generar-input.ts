// A `documentos/generar` request's documents (its body's schema: GenerateRequest in ./schema.ts),
// checked against their schema one at a time with pauses between them: 2 000 documents through the
// schema in one go held the thread ~100 ms. The refusal is the one the body's validation gives (422,
// each field named), as if the schema had run.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { validationHook } from "../../platform/validation.ts";

/** What normalizing would fill in, so a document taken as given must carry it (the engine's REQUIRED). */
export const AS_GIVEN_REQUIRED = [
  ["IdDoc", "FchEmis"],
  ["Totales", "MntTotal"],
] as const;

/** Taken as given (`normalizar: false`), nothing fills in the date or the total: the document must carry them. */
function asGivenIssues(document: Record<string, unknown>, at: PropertyKey[]): z.core.$ZodIssue[] {
  const encabezado = (document.Encabezado ?? {}) as Record<string, unknown>;
  const part = (name: string) => (encabezado[name] ?? {}) as Record<string, unknown>;
  return AS_GIVEN_REQUIRED.filter(([name, field]) => part(name)[field] === undefined).map(([name, field]) => ({
    code: "custom" as const,
    path: [...at, "Encabezado", name, field],
    message: "is required with normalizar: false",
    input: undefined,
  }));
}

/**
 * Each document of `body.dte` through `schema` (a list is checked item by item, pausing between
 * them), and the as-given rule; any problem throws the body's validation error.
 */
export async function validDocuments<T extends z.ZodType<Record<string, unknown>>>(
  c: Context,
  schema: T,
  body: { dte: Record<string, unknown> | Record<string, unknown>[]; normalizar: boolean },
  pause: () => Promise<void>,
): Promise<z.output<T>[]> {
  const list = Array.isArray(body.dte);
  const documents = Array.isArray(body.dte) ? body.dte : [body.dte];
  const issues: z.core.$ZodIssue[] = [];
  const valid: z.output<T>[] = [];
  for (const [i, document] of documents.entries()) {
    const at: PropertyKey[] = list ? ["dte", i] : ["dte"];
    // A lone document was checked by the body's schema already.
    const result = list ? schema.safeParse(document) : { success: true as const, data: document as z.output<T> };
    if (result.success) {
      valid.push(result.data);
      if (!body.normalizar) issues.push(...asGivenIssues(result.data, at));
    } else issues.push(...result.error.issues.map((issue) => ({ ...issue, path: [...at, ...issue.path] })));
    await pause();
  }
  if (issues.length) validationHook({ success: false, error: new z.ZodError(issues), target: "json", data: body }, c);
  return valid;
}
