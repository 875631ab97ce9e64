// `npm run build:lambda`: the Lambda entry as one ESM file, dist-lambda/index.mjs, that
// template.yaml deploys twice: Handler index.handler (the HTTP API) and index.scheduled (the jobs'
// schedule); both are exports of src/entry/lambda.ts. Everything is bundled: the functions need no
// node_modules. esbuild comes with wrangler.
import { mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = process.argv[2] ?? join(root, "dist-lambda");

rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
const result = await build({
  entryPoints: [join(root, "src", "entry", "lambda.ts")],
  outfile: join(outdir, "index.mjs"),
  bundle: true,
  platform: "node",
  target: "node22",
  format: "esm",
  minify: true,
  sourcemap: true,
  legalComments: "external",
  metafile: true,
  // CommonJS dependencies call require() for Node's own modules, which an ES module lacks.
  banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
  logLevel: "warning",
});
const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
console.log(`dist-lambda/index.mjs: ${(bytes / 1024 / 1024).toFixed(2)} MiB with its source map`);
