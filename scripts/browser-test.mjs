// `npm run test:browser`: the /docs page in headless Chromium (Debian's), served by `wrangler dev`
// as Workers serves it in production. Bounded in time; stops everything it started.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const CHROMIUM = "/usr/bin/chromium";
const OPERATION = "/api/v1/usage";
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = join(root, "node_modules", ".bin");
const results = [];

if (!existsSync(CHROMIUM)) {
  console.error(`${CHROMIUM} is missing: install Debian's Chromium first ("apt-get install -y chromium")`);
  process.exit(1);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const assert = (condition, message) => {
  if (!condition) throw new Error(message);
};
const oneLine = (err) => String(err instanceof Error ? err.message : err).split("\n")[0];

async function check(name, run) {
  try {
    await run();
    results.push(true);
    console.log(`ok - ${name}`);
  } catch (err) {
    results.push(false);
    console.log(`not ok - ${name}: ${oneLine(err)}`);
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

// Wrangler runs in its own process group (it starts workerd and esbuild), with its local state in a
// temporary directory, apart from a developer's `npm run dev` state.
const temp = mkdtempSync(join(tmpdir(), "sii-docs-test-"));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const screenshot = join(temp, "docs.png");
const wrangler = spawn(
  join(bin, "wrangler"),
  [
    ...["dev", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", join(temp, "state")],
    // wrangler.toml defaults to live: the page is tested against the sandbox, as `npm run dev` runs it.
    ...["--var", "SII_UPSTREAM:sandbox", "--var", `DEV_API_TOKEN:sii_dev_${randomBytes(12).toString("hex")}`],
  ],
  {
    cwd: root,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    // CLOUDFLARE_CF_FETCH_ENABLED=false: miniflare's placeholder `request.cf` instead of fetching
    // one from workers.cloudflare.com, so the test never leaves the machine.
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      PATH: `${bin}:${process.env.PATH}`,
    },
  },
);
let wranglerLog = "";
wrangler.stdout.on("data", (d) => (wranglerLog += d));
wrangler.stderr.on("data", (d) => (wranglerLog += d));
const wranglerExit = new Promise((resolve) => wrangler.once("exit", (code, signal) => resolve(signal ?? code)));

let browser;
let stopping;
function stop() {
  stopping ??= (async () => {
    await Promise.race([browser?.close(), sleep(5_000)]).catch(() => {});
    const signal = (name) => {
      try {
        process.kill(-wrangler.pid, name);
      } catch {}
    };
    signal("SIGTERM");
    if ((await Promise.race([wranglerExit.then(() => true), sleep(5_000)])) !== true) signal("SIGKILL");
    rmSync(existsSync(screenshot) ? join(temp, "state") : temp, { recursive: true, force: true });
  })();
  return stopping;
}

function finish() {
  const passed = results.filter(Boolean).length;
  const failed = results.length - passed;
  if (failed && wranglerLog) for (const line of wranglerLog.trimEnd().split("\n").slice(-15)) console.log(`# ${line}`);
  if (existsSync(screenshot)) console.log(`# screenshot: ${screenshot}`);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

setTimeout(async () => {
  console.log("not ok - finished within 120 s");
  results.push(false);
  await stop();
  finish();
}, 120_000).unref();
for (const name of ["SIGINT", "SIGTERM"]) {
  process.once(name, async () => {
    await stop();
    process.exit(130);
  });
}

async function untilServing() {
  const deadline = Date.now() + 60_000;
  let exited = false;
  wranglerExit.then(() => (exited = true));
  while (Date.now() < deadline && !exited) {
    try {
      const response = await fetch(`${base}/openapi.json`, { signal: AbortSignal.timeout(2_000) });
      if (response.status === 200) return;
    } catch {}
    await sleep(250);
  }
  throw new Error(exited ? `wrangler dev exited (${await wranglerExit})` : "no 200 from /openapi.json within 60 s");
}

let serving = false;
await check("wrangler dev serves /openapi.json", async () => {
  await untilServing();
  serving = true;
});

if (serving) {
  let page;
  const foreign = [];
  await check("Chromium starts", async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      timeout: 30_000,
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
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.on("request", (request) => {
      const url = new URL(request.url());
      if (url.protocol !== "data:" && url.protocol !== "blob:" && url.hostname !== "127.0.0.1") foreign.push(request.url());
    });
    page = await context.newPage();
  });

  if (page) {
    await check("/docs redirects to /docs/ and serves the page titled 'SII gateway API'", async () => {
      const response = await page.goto(`${base}/docs`, { waitUntil: "load", timeout: 30_000 });
      assert(response?.status() === 200, `status ${response?.status()}`);
      const from = response.request().redirectedFrom();
      assert(from && new URL(from.url()).pathname === "/docs", "no redirect from /docs");
      assert(new URL(page.url()).pathname === "/docs/", `landed on ${page.url()}`);
      const title = await page.title();
      assert(title === "SII gateway API", `title "${title}"`);
      await page.getByText("X-API-Token", { exact: true }).first().waitFor({ timeout: 30_000 });
    });

    const operation = page.locator(`.opblock:has(.opblock-summary-path[data-path="${OPERATION}"])`).first();
    await check("Swagger UI renders the operations from /openapi.json", async () => {
      await operation.waitFor({ timeout: 30_000 });
      const count = await page.locator(".opblock").count();
      assert(count >= 5, `only ${count} operations rendered`);
    });

    await check(`${OPERATION} expands and shows its 200 response`, async () => {
      await operation.locator(".opblock-summary").first().click({ timeout: 10_000 });
      await operation
        .locator(".responses-table .response-col_status", { hasText: /^\s*200\s*$/ })
        .first()
        .waitFor({ timeout: 10_000 });
      assert(new URL(page.url()).hash.startsWith("#/"), `no deep link in ${page.url()}`);
      await page.screenshot({ path: screenshot });
    });

    await check("no request leaves 127.0.0.1 (no CDN)", () => assert(foreign.length === 0, `requests to ${foreign.join(", ")}`));
  }
}

await stop();
finish();
