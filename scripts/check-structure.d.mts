// Types of check-structure.mjs, for the test that runs it.
export interface Structure {
  perLayer: Record<string, number>;
  up: string[];
  cycles: string[][];
  /** Imports from a route group into another group or an unlisted routes module: `from → to: why`. */
  crossGroup: string[];
  /** Hono imports in services/, sii/, dte/ or certificates/: `file (layer) → specifier`. */
  hono: string[];
  /** Files breaking a rule of their own (factory.ts, a route file over its lines, a service writing the envelope): `file why`. */
  rules: string[];
}
/** The layers in order, each with the test that puts a path (relative to src/) in it. */
export const LAYERS: [string, (path: string) => boolean][];
export const ALLOWED: Record<string, string[]>;
export const SHARED_ROUTE_MODULES: string[];
export const ROUTE_FILE_LINES: number;
export function fileProblem(path: string, text: string): string | null;
export function crossGroupProblem(path: string, target: string): string | null;
export function layerOf(path: string): string;
export function importsOf(text: string): string[];
export function analyse(srcDir: string, files?: Record<string, string>): Structure;
