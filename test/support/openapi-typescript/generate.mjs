// Generates a client's types from an OpenAPI document as openapi-typescript's CLI would:
// node --import ./register.mjs generate.mjs <openapi.json> <out.d.ts>. Run in a child process
// because the resolve hook (register.mjs) applies to the process that loads openapi-typescript.
import { readFileSync, writeFileSync } from "node:fs";

const [input, output] = process.argv.slice(2);
const { default: openapiTS, astToString } = await import("openapi-typescript");
// openapi-typescript's default options, as a client developer would first run it.
const ast = await openapiTS(JSON.parse(readFileSync(input, "utf8")));
writeFileSync(output, astToString(ast));
