// `npm run test:rough` reaches every project: the seed in SANDBOX_ROUGH_SEED (in workerd a binding
// that nodejs_compat puts on process.env) becomes the default of every sandbox no test configures.
// Runs in Node and in workerd.
import { describe, expect, it } from "vitest";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { parseRoughSeed, roughDefault } from "../../src/sandbox/rough.ts";

describe("the rough sandbox's seed", () => {
  it("is the default of new sandboxes exactly when SANDBOX_ROUGH_SEED is set, and a sandbox may pin it off", () => {
    const seed = parseRoughSeed(globalThis.process?.env?.SANDBOX_ROUGH_SEED);
    expect(roughDefault()).toBe(seed);
    expect(createDefaultSandbox().state.rough?.seed ?? null).toBe(seed);
    expect(createDefaultSandbox({ roughSeed: null }).state.rough).toBeNull();
  });
});
