// Runs after `npm install` (the `prepare` script): copies the Swagger UI files the /docs page
// loads into public/docs/vendor/, so the gateway serves them itself (no CDN). Install output,
// never committed.
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const from = join(root, "node_modules", "swagger-ui-dist");
const to = join(root, "public", "docs", "vendor");
const files = ["swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png"];

mkdirSync(to, { recursive: true });
for (const file of files) copyFileSync(join(from, file), join(to, file));
console.log(`docs assets: ${files.length} files in public/docs/vendor`);
