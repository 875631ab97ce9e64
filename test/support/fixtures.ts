// The public test data beside the project (`../shared/fixtures/`). Tests that read it skip with a
// message naming the folder when it is absent, so a fresh clone still passes.
import { join } from "node:path";

export const SHARED_FIXTURES = join(import.meta.dirname, "..", "..", "..", "shared", "fixtures");

export function fixturePath(...parts: string[]): string {
  return join(SHARED_FIXTURES, ...parts);
}
