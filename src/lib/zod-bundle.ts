// The Worker bundle's "zod" (wrangler.toml [alias]): every export of zod's classic API, with
// three parts left out here and in `z.core` (zod-core-bundle.ts). @hono/zod-openapi hands the
// whole `z` namespace to extendZodWithOpenApi, so a bundler keeps every member of it: `locales`,
// zod's 60-odd translations of its error messages (~267 KB minified; errors here are English),
// `compile` (its schema compiler, ~31 KB) and `fromJSONSchema` (~12 KB), which no route calls.
// zod-bundle.test.ts checks both lists against zod's own exports, so an upgrade that adds a name
// fails there, and that no source file calls what is left out. The path is relative because the alias rewrites every
// "zod/..." specifier too.
import * as z from "./zod-classic-bundle.ts";

export * from "./zod-classic-bundle.ts";
export { z, z as default };
