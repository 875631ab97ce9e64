// The CAFs of one generation request: one per type, or several consecutive (or any disjoint) ranges
// of one type, as the SII grants them (at most MAX_AUTOR folios a request: a large batch of one type
// spans several CAFs). Each document is stamped with the CAF whose range holds its folio.
import type { FieldProblem } from "../normalize/sanitize.ts";
import type { RsaPublicKey } from "../verify/timbre.ts";
import { type Caf, CafError, readCaf } from "./caf.ts";

export interface CafEntry {
  caf: Caf;
  /** The request field it came from (`caf`, `caf[2]`). */
  path: string;
}

/** The readable CAFs by type, each type's ranges in folio order; overlapping ranges of a type are a problem. */
export async function readCafSet(
  inputs: readonly string[],
  cafKeys: ReadonlyMap<string, RsaPublicKey>,
  problems: FieldProblem[],
): Promise<Map<number, CafEntry[]>> {
  const byType = new Map<number, CafEntry[]>();
  for (const [i, input] of inputs.entries()) {
    const path = inputs.length > 1 ? `caf[${i}]` : "caf";
    try {
      const caf = await readCaf(input, path, cafKeys);
      const ranges = byType.get(caf.td) ?? [];
      // Two CAFs covering one folio would leave the choice of the stamp's key to chance.
      const overlap = ranges.find((r) => r.caf.desde <= caf.hasta && caf.desde <= r.caf.hasta);
      if (overlap)
        problems.push({
          path,
          message: `covers folios ${caf.desde}–${caf.hasta} of type ${caf.td}, overlapping ${overlap.path} (${overlap.caf.desde}–${overlap.caf.hasta}): give each range once`,
        });
      else
        byType.set(
          caf.td,
          [...ranges, { caf, path }].sort((a, b) => a.caf.desde - b.caf.desde),
        );
    } catch (error) {
      if (!(error instanceof CafError)) throw error;
      problems.push(error.problem);
    }
  }
  return byType;
}

/** The CAF of the document's type whose range holds its folio; else the type's nearest one (its problems name the range), or none. */
export function cafFor(byType: ReadonlyMap<number, readonly CafEntry[]>, tipo: number, folio: number): CafEntry | undefined {
  const ranges = byType.get(tipo);
  if (!ranges?.length) return undefined;
  return (
    ranges.find((r) => folio >= r.caf.desde && folio <= r.caf.hasta) ??
    (folio < (ranges[0] as CafEntry).caf.desde ? ranges[0] : ranges.at(-1))
  );
}
