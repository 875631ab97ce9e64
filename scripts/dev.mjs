// `npm run dev`: wrangler dev on 127.0.0.1:8787 against the built-in SII sandbox, with a
// development API token (DEV_API_TOKEN, else random) and an admin token (ADMIN_TOKEN, else random)
// so `npm run token` works locally. Extra arguments go to wrangler.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";

const extra = process.argv.slice(2);
const live = process.env.SII_UPSTREAM === "live" || extra.some((a) => a.replace(/\s/g, "") === "SII_UPSTREAM:live");
const port = process.env.PORT ?? "8787";
const args = ["dev", "--ip", "127.0.0.1", "--port", port];
const lines = [];

if (process.env.ADMIN_TOKEN && process.env.ADMIN_TOKEN.length < 32) {
  console.error("ADMIN_TOKEN must be at least 32 characters (for example: openssl rand -base64 32)");
  process.exit(1);
}
// wrangler.toml defaults to live (a plain deploy must not be a public sandbox): dev picks the sandbox here.
if (live) {
  args.push("--var", "SII_UPSTREAM:live");
} else {
  args.push("--var", "SII_UPSTREAM:sandbox");
  const token = process.env.DEV_API_TOKEN || `sii_dev_${randomBytes(24).toString("base64url")}`;
  args.push("--var", `DEV_API_TOKEN:${token}`);
  lines.push(`Development API token: ${token}`);
}
if (process.env.ADMIN_TOKEN || !live) {
  const admin = process.env.ADMIN_TOKEN || `adm_dev_${randomBytes(24).toString("base64url")}`;
  args.push("--var", `ADMIN_TOKEN:${admin}`);
  if (!process.env.ADMIN_TOKEN) lines.push(`Development admin token: ${admin}  (ADMIN_TOKEN=... npm run token -- list)`);
}

for (const line of lines) console.log(line);
const child = spawn("wrangler", [...args, ...extra], {
  stdio: ["inherit", "pipe", "inherit"],
  // CLOUDFLARE_CF_FETCH_ENABLED=false (unless set): miniflare's placeholder `request.cf`, not one
  // fetched from workers.cloudflare.com, which offline prints two ENOTFOUND stack traces.
  env: { CLOUDFLARE_CF_FETCH_ENABLED: "false", ...process.env, WRANGLER_SEND_METRICS: "false" },
});
child.stdout.on("data", (chunk) => {
  process.stdout.write(chunk);
  // Say the tokens again once wrangler's start-up output has scrolled them away.
  if (String(chunk).includes("Ready on")) for (const line of lines) console.log(line);
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 0));
