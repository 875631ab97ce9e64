// The public test data the tests read (`test/fixtures/`: sources and licences in its README).
import { join } from "node:path";

export const FIXTURES = join(import.meta.dirname, "..", "fixtures");

export function fixturePath(...parts: string[]): string {
  return join(FIXTURES, ...parts);
}
