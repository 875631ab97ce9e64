// The Worker bundle's "zod" (wrangler.toml [alias]): every export of zod's classic API, with
// `locales` left out here and in `z.core` (zod-core-bundle.ts). @hono/zod-openapi hands the whole
// `z` namespace to extendZodWithOpenApi, so a bundler keeps every member of it, and `locales`
// carries zod's 60-odd translations of its error messages (~267 KB minified) that no route uses:
// errors are English. zod-bundle.test.ts checks both lists against zod's own exports, so an
// upgrade that adds a name fails there. The path is relative because the alias rewrites every
// "zod/..." specifier too.
import * as z from "./zod-classic-bundle.ts";

export * from "./zod-classic-bundle.ts";
export { z, z as default };
