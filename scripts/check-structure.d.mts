// Types of check-structure.mjs, for the test that runs it.
export interface Structure {
  perLayer: Record<string, number>;
  up: string[];
  excepted: string[];
  cycles: string[][];
}
export const ALLOWED: Record<string, string[]>;
export const EXCEPTIONS: { from: string; to: string }[];
export function layerOf(path: string): string;
export function importsOf(text: string): string[];
export function analyse(srcDir: string, files?: Record<string, string>): Structure;
