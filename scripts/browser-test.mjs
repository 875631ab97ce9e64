// `npm run test:browser`: the /docs page in headless Chromium (Debian's), served by `wrangler dev`
// as Workers serves it in production. Bounded in time; stops everything it started.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const CHROMIUM = "/usr/bin/chromium";
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const results = [];

if (!existsSync(CHROMIUM)) {
  console.error(`${CHROMIUM} is missing: install Debian's browser with "apt-get install chromium"`);
  process.exit(1);
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

async function check(name, run) {
  try {
    await run();
    results.push(true);
    console.log(`ok - ${name}`);
  } catch (err) {
    results.push(false);
    console.log(`not ok - ${name}: ${err instanceof Error ? err.message : err}`);
  }
}

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

async function waitForGateway(base, deadline) {
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${base}/openapi.json`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("wrangler dev did not answer within 60 s");
}

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const wrangler = spawn(
  join(root, "node_modules", ".bin", "wrangler"),
  ["dev", "--ip", "127.0.0.1", "--port", String(port), "--var", `DEV_API_TOKEN:sii_dev_${randomBytes(12).toString("hex")}`],
  {
    cwd: root,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", PATH: `${join(root, "node_modules", ".bin")}:${process.env.PATH}` },
  },
);
let wranglerOutput = "";
wrangler.stdout.on("data", (d) => (wranglerOutput += d));
wrangler.stderr.on("data", (d) => (wranglerOutput += d));

let browser;
const stop = () => {
  try {
    process.kill(-wrangler.pid, "SIGTERM");
  } catch {}
};
const overall = setTimeout(() => {
  console.log("not ok - finished within 120 s");
  console.log(`${results.filter(Boolean).length} passed, ${results.filter((r) => !r).length + 1} failed`);
  stop();
  process.exit(1);
}, 120_000);

try {
  await waitForGateway(base, Date.now() + 60_000);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const page = await browser.newPage();
  const foreign = [];
  page.on("request", (request) => {
    const host = new URL(request.url()).hostname;
    if (host !== "127.0.0.1" && !request.url().startsWith("data:")) foreign.push(request.url());
  });

  await check("/docs (no trailing slash) leads to the reference page", async () => {
    const response = await page.goto(`${base}/docs`, { waitUntil: "load", timeout: 30_000 });
    assert(response?.ok(), `status ${response?.status()}`);
    assert(new URL(page.url()).pathname.startsWith("/docs"), `landed on ${page.url()}`);
    assert((await page.title()) === "SII gateway API", `title "${await page.title()}"`);
  });

  await check("Swagger UI renders the operations from /openapi.json", async () => {
    await page.locator(".opblock", { hasText: "/api/v1/usage" }).first().waitFor({ timeout: 30_000 });
    const count = await page.locator(".opblock").count();
    assert(count >= 5, `only ${count} operations rendered`);
  });

  await check("an operation expands and shows its 200 response", async () => {
    await page.locator(".opblock-summary", { hasText: "/api/v1/usage" }).first().click();
    await page.locator(".responses-table .response-col_status", { hasText: "200" }).first().waitFor({ timeout: 10_000 });
  });

  await check("no request leaves 127.0.0.1 (no CDN)", async () => {
    assert(foreign.length === 0, `requests to ${foreign.join(", ")}`);
  });
} catch (err) {
  await check("the gateway starts under wrangler dev", () => {
    throw new Error(`${err instanceof Error ? err.message : err}\n${wranglerOutput.slice(-2000)}`);
  });
} finally {
  clearTimeout(overall);
  await browser?.close().catch(() => {});
  stop();
}

const passed = results.filter(Boolean).length;
const failed = results.length - passed;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
