// What a dry_run preview says of its own values: the answer keeps the operation's shape, and
// `vista_previa` names the fields the SII would decide (placeholders: their values mean nothing)
// and those the gateway only estimates (what the SII would likely answer, not a promise).
import { z } from "@hono/zod-openapi";

export interface PreviewMarks {
  /** Fields whose values stand in for what only the SII decides. */
  provisionales: string[];
  /** Fields the gateway estimates (its ledger, its clock): the SII may answer otherwise. */
  estimados: string[];
}

/** The answer's marker, present only on a preview. */
export const PreviewMark = z
  .object({
    provisionales: z
      .array(z.string())
      .register(z.globalRegistry, { description: "Fields whose values are placeholders: only the SII decides them" }),
    estimados: z
      .array(z.string())
      .register(z.globalRegistry, { description: "Fields the gateway estimates; the SII may answer otherwise" }),
  })
  .optional()
  .register(z.globalRegistry, {
    description: "Only on a `dry_run` preview: which fields of `data` are placeholders and which are estimates",
  });

/** The sentence an operation's description gains: which fields of its preview mean nothing. */
export function previewNote(provisionales: readonly string[], estimados: readonly string[] = []): string {
  const named = (fields: readonly string[]) => fields.map((f) => `\`${f}\``).join(", ");
  const estimates = estimados.length > 0 ? `; ${named(estimados)} are estimates` : "";
  return `A \`dry_run\` preview keeps this shape and marks itself in \`vista_previa\`: ${named(provisionales)} are placeholders${estimates}.`;
}
