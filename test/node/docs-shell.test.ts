// The shell blocks of README.md and docs/*.md run as written, against the Node entry on the sandbox.
//
// The rules, all of them:
// - A block is a ```sh, ```bash or ```shell fence. It talks to the gateway when it names
//   `http://127.0.0.1:8787` or `$GW`; the others (installing, deploying, the live check against the
//   real SII) are not run, and each is listed as such by name below.
// - Each document's gateway blocks run in order in one `bash` process (`set -euo pipefail`), in a fresh
//   directory, with `TOKEN` and `ADMIN_TOKEN` exported: the server's own tokens.
// - Two rewrites only: `http://127.0.0.1:8787` becomes the server's URL, and a line that assigns a
//   placeholder (a value ending in `...`, as `TOKEN=sii_dev_...`) is dropped, so the exported value stays.
// - `curl` is wrapped to report each call's status: every call must get a 2xx, unless its command's
//   comment starts with another status (`# 401 ...`), which it must get. A comment showing output
//   (`# {"success":true,...}`, `# "aceptado"`) is not compared: the status is.
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
// The entry runs on Node 22 (type stripping): the project's own copy when the runner is older.
const LOCAL_NODE = join(ROOT, "node_modules", ".bin", "node");
const NODE = Number(process.versions.node.split(".")[0]) >= 22 || !existsSync(LOCAL_NODE) ? process.execPath : LOCAL_NODE;
const DOC_URL = "http://127.0.0.1:8787";
const TOKEN = `sii_dev_${randomBytes(18).toString("base64url")}`;
const ADMIN_TOKEN = `adm_dev_${randomBytes(24).toString("base64url")}`;

interface Block {
  doc: string;
  /** The line of the opening fence. */
  line: number;
  lines: string[];
}

function blocksOf(doc: string): Block[] {
  const text = readFileSync(join(ROOT, doc), "utf8").split("\n");
  const blocks: Block[] = [];
  let open: Block | undefined;
  text.forEach((line, i) => {
    if (open) {
      if (/^```\s*$/.test(line)) {
        blocks.push(open);
        open = undefined;
      } else open.lines.push(line);
    } else if (/^```(sh|bash|shell)\s*$/.test(line)) open = { doc, line: i + 1, lines: [] };
  });
  return blocks;
}

const docs = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`),
];
const blocks = docs.flatMap(blocksOf);
const talksToGateway = (block: Block) => block.lines.some((l) => l.includes(DOC_URL) || l.includes("$GW"));
const runDocs = docs
  .map((doc) => ({ doc, blocks: blocks.filter((b) => b.doc === doc && talksToGateway(b)) }))
  .filter((d) => d.blocks.length > 0);
const notRun = blocks.filter((b) => !talksToGateway(b)).map((b) => [`${b.doc}:${b.line} (${b.lines[0]?.trim()})`, b] as const);

const PLACEHOLDER = /^\s*(?:export\s+)?[A-Za-z_]\w*=\S*\.\.\.\s*(?:#.*)?$/;
// Written before the blocks: each curl call reports, on stderr, the script line of the top-level
// command it belongs to (a call inside a function is the caller's) and its HTTP status. `-q`: the
// runner's ~/.curlrc is not read.
const PRELUDE = [
  "set -euo pipefail",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's own expansion, not a template
  'curl() { command curl -q -w "%{stderr}@@docs-shell ${BASH_LINENO[${#BASH_LINENO[@]}-2]} %{http_code}\\n" "$@"; }',
];

interface Script {
  text: string;
  /** By script line (1-based): where it comes from and the text of its whole command. */
  origin: Map<number, { where: string; command: string }>;
}

function scriptOf(doc: { doc: string; blocks: Block[] }, url: string): Script {
  const lines = [...PRELUDE];
  const origin = new Map<number, { where: string; command: string }>();
  for (const block of doc.blocks) {
    lines.push(`# ${block.doc}:${block.line}`);
    block.lines.forEach((raw, i) => {
      const line = PLACEHOLDER.test(raw) ? "" : raw.replaceAll(DOC_URL, url);
      lines.push(line);
      // The command starting here and its continuation lines (a `\` at the end).
      let end = i;
      while (block.lines[end]?.endsWith("\\") && end + 1 < block.lines.length) end++;
      origin.set(lines.length, { where: `${block.doc}:${block.line + 1 + i}`, command: block.lines.slice(i, end + 1).join("\n") });
    });
  }
  return { text: `${lines.join("\n")}\n`, origin };
}

/** The status a command's comment names (`# 401 HTTP_401`), else undefined: any 2xx. */
function expectedStatus(command: string): number | undefined {
  const m = /\s#\s*([1-5]\d\d)(?:\s|,|$)/.exec(command);
  return m ? Number(m[1]) : undefined;
}

function runBash(script: string, cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  writeFileSync(join(cwd, ".docs-shell.sh"), script);
  const env = { ...process.env, TOKEN, ADMIN_TOKEN };
  return new Promise((resolve) => {
    execFile("bash", [".docs-shell.sh"], { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

let base = "";
let log = "";
let stop: () => void = () => {};

// `npm start`'s process, state in memory, on a free port.
beforeAll(async () => {
  const port = await freePort();
  const server = spawn(
    NODE,
    ["--experimental-strip-types", "--experimental-async-context-frame", "--no-warnings=ExperimentalWarning", "src/entry/node.ts"],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        SII_UPSTREAM: "sandbox",
        HOST: "127.0.0.1",
        PORT: String(port),
        DATABASE_PATH: ":memory:",
        DEV_API_TOKEN: TOKEN,
        ADMIN_TOKEN,
      },
    },
  );
  server.stdout.on("data", (c) => {
    log += c;
  });
  server.stderr.on("data", (c) => {
    log += c;
  });
  stop = () => server.kill("SIGTERM");
  base = `http://127.0.0.1:${port}`;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`the gateway exited (${server.exitCode}):\n${log}`);
    const up = await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return;
    await new Promise((r) => setTimeout(r, 250));
  }
}, 120_000);
afterAll(() => stop());

describe("docs' shell blocks", () => {
  it("finds the gateway blocks of the README and the issuing guide", () => {
    expect(runDocs.map((d) => d.doc)).toEqual(expect.arrayContaining(["README.md", "docs/issuing.md"]));
  });

  // Not run: the block names no local gateway. None may reach one under another spelling either.
  it.each(notRun)("does not run %s: it names no local gateway", (_name, block) => {
    expect(block.lines.join("\n")).not.toMatch(/127\.0\.0\.1|localhost|\[::1\]/);
  });

  it.each(runDocs.map((d) => [d.doc, d] as const))(
    "%s runs as written",
    async (_name, doc) => {
      const script = scriptOf(doc, base);
      const dir = mkdtempSync(join(tmpdir(), "docs-shell-"));
      try {
        const run = await runBash(script.text, dir);
        const context = `stdout:\n${run.stdout.slice(-3000)}\nstderr:\n${run.stderr.slice(-3000)}\nserver:\n${log.slice(-2000)}`;
        expect(run.code, `bash exited ${run.code}\n${context}`).toBe(0);
        const calls = [...run.stderr.matchAll(/^@@docs-shell (\d+) (\d{3})$/gm)].map((m) => ({
          line: Number(m[1]),
          status: Number(m[2]),
        }));
        expect(calls.length, context).toBeGreaterThan(0);
        for (const call of calls) {
          const from = script.origin.get(call.line);
          expect(from, `script line ${call.line} is a document's line`).toBeDefined();
          const wanted = expectedStatus(from?.command ?? "");
          const what = `${from?.where}: ${from?.command}\nanswered ${call.status}`;
          if (wanted === undefined) expect(call.status >= 200 && call.status < 300, what).toBe(true);
          else expect(call.status, what).toBe(wanted);
        }
        // Every line that calls curl directly (not a comment, not a function's definition) made a call.
        for (const [line, from] of script.origin) {
          const text = from.command.split("\n")[0] ?? "";
          if (/\bcurl\s/.test(text) && !/^\s*(#|\w+\(\)\s*\{)/.test(text))
            expect(
              calls.some((c) => c.line === line),
              `${from.where} made no call`,
            ).toBe(true);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    180_000,
  );
});
