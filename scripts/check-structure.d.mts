// Types of check-structure.mjs, for the test that runs it.
export interface Structure {
  perLayer: Record<string, number>;
  up: string[];
  cycles: string[][];
  /** Imports from a route group into another group or an unlisted routes module: `from → to: why`. */
  crossGroup: string[];
  /** The imports between groups still to move that were found (TOLERATED_CROSS_GROUP). */
  tolerated: string[];
  /** Hono imports in sii/ or dte/: `file (layer) → specifier`. */
  hono: string[];
}
/** The layers in order, each with the test that puts a path (relative to src/) in it. */
export const LAYERS: [string, (path: string) => boolean][];
export const ALLOWED: Record<string, string[]>;
export const SHARED_ROUTE_MODULES: string[];
export const TOLERATED_CROSS_GROUP: string[];
export function crossGroupProblem(path: string, target: string): string | null;
export function layerOf(path: string): string;
export function importsOf(text: string): string[];
export function analyse(srcDir: string, files?: Record<string, string>): Structure;
