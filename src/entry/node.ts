// `npm start`: the gateway on Node 22 (PORT, default 8788), state in a SQLite file.
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { randomBase64Url } from "../lib/crypto.ts";
import { createNodeServer } from "./node-server.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const env = { ...process.env };
const sandbox = (env.SII_UPSTREAM ?? "sandbox") === "sandbox";
if (sandbox && !env.DEV_API_TOKEN) env.DEV_API_TOKEN = `sii_dev_${randomBase64Url(24)}`;

const database = env.DATABASE_PATH ?? join(root, ".data", "gateway.sqlite");
if (database !== ":memory:") mkdirSync(dirname(database), { recursive: true });

const port = Number(env.PORT ?? 8788);
const host = env.HOST ?? "127.0.0.1";
// The sandbox's built-in SECRET_KEY is published in this repository: only a server that nobody
// else can reach may run on it.
if (sandbox && !env.SECRET_KEY && !["127.0.0.1", "localhost", "::1"].includes(host)) {
  console.error(`Set SECRET_KEY to listen on ${host}: the sandbox's built-in key is published, so only loopback runs without one.`);
  process.exit(1);
}
const { server } = await createNodeServer({ env, database, publicDir: join(root, "public") });
server.listen(port, host, () => {
  console.log(`SII gateway on http://${host}:${port} (SII upstream: ${sandbox ? "sandbox" : "live"})`);
  if (sandbox) console.log(`Development API token: ${env.DEV_API_TOKEN}`);
});

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
