// Every test project loads this first: with SANDBOX_ROUGH_SEED set (`npm run test:rough`), each
// sandbox a test does not configure itself runs the rough schedule of that seed (src/sandbox/rough.ts).
// In workerd the variable arrives as a binding, which nodejs_compat puts on process.env.
import { parseRoughSeed, setRoughDefault } from "../../src/sandbox/rough.ts";

setRoughDefault(parseRoughSeed(globalThis.process?.env?.SANDBOX_ROUGH_SEED));
