// The deploy steps (docs/deploying.md) must deploy what the repository declares: a KV namespace created for
// every binding in wrangler.toml, each Durable Object class and its migration named, the secrets
// each entry refuses to run without, and the commands of the Lambda and container deployments.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EGRESS_PATH } from "../../src/sii/egress.ts";

const root = join(import.meta.dirname, "..", "..");
const read = (file: string) => readFileSync(join(root, file), "utf8");

/** docs/deploying.md's deploy steps: from its start to its configuration table, which only names settings. */
function deployingSection(): string {
  const page = read("docs/deploying.md");
  if (!page.startsWith("# Deploying\n")) throw new Error("docs/deploying.md does not start with # Deploying");
  const end = page.indexOf("\n## Configuration\n");
  if (end < 0) throw new Error("docs/deploying.md has no ## Configuration section after its steps");
  return page.slice(0, end);
}

/** wrangler.toml's top-level part (the default environment), before any [env.*] table. */
function wranglerDefault() {
  const toml = read("wrangler.toml");
  const top = toml.slice(0, toml.search(/^\[env\./m) >>> 0);
  const strings = (pattern: RegExp) => [...top.matchAll(pattern)].map((m) => m[1] ?? "");
  const sqliteClasses = [...top.matchAll(/^new_sqlite_classes\s*=\s*\[([^\]]*)\]/gm)].flatMap((m) =>
    [...(m[1] ?? "").matchAll(/"([^"]+)"/g)].map((c) => c[1] ?? ""),
  );
  return {
    kv: strings(/^\[\[kv_namespaces\]\]\s*\nbinding\s*=\s*"([^"]+)"/gm),
    doClasses: strings(/^class_name\s*=\s*"([^"]+)"/gm),
    doBindings: strings(/^\[\[durable_objects\.bindings\]\]\s*\nname\s*=\s*"([^"]+)"/gm),
    migrationTags: strings(/^tag\s*=\s*"([^"]+)"/gm),
    sqliteClasses,
  };
}

describe("the deploy steps of docs/deploying.md", () => {
  const section = deployingSection();
  const wrangler = wranglerDefault();

  it("reads wrangler.toml's bindings (the parse this test relies on)", () => {
    expect(wrangler.kv).toEqual(expect.arrayContaining(["TOKENS", "SETTINGS", "CACHE"]));
    expect(wrangler.doClasses.length).toBe(wrangler.doBindings.length);
    expect(wrangler.doClasses.length).toBeGreaterThan(0);
    expect(wrangler.migrationTags.length).toBeGreaterThan(0);
  });

  it("creates a KV namespace for every binding the Worker has", () => {
    for (const binding of wrangler.kv) expect(section, `kv namespace ${binding}`).toContain(`npx wrangler kv namespace create ${binding}`);
  });

  it("names every Durable Object class, its binding, and the migrations that create them", () => {
    for (const name of [...wrangler.doClasses, ...wrangler.doBindings]) expect(section, name).toContain(`\`${name}\``);
    for (const tag of wrangler.migrationTags) expect(section, `migration ${tag}`).toContain(`migration \`${tag}\``);
    // Every class is created by some migration, or the first deploy fails.
    for (const name of wrangler.doClasses) expect(wrangler.sqliteClasses, name).toContain(name);
  });

  it("sets the secrets a deployed Worker needs, and the egress it uses for certificate logins", () => {
    for (const secret of ["SECRET_KEY", "ADMIN_TOKEN", "EGRESS_SECRET", "EGRESS_URL"]) {
      expect(section, secret).toContain(`npx wrangler secret put ${secret}`);
    }
    expect(section).toContain("npx wrangler deploy\n");
    expect(section).toContain(EGRESS_PATH);
  });

  it("builds and deploys the Lambda from template.yaml with its secret in Secrets Manager", () => {
    expect(section).toContain("`template.yaml`");
    expect(section).toContain("npm run build:lambda");
    expect(section).toContain("sam deploy --guided");
    expect(section).toMatch(/aws secretsmanager create-secret --name sii-gateway/);
    // The secret's name is the template's default for the parameter that names it.
    expect(read("template.yaml")).toMatch(/SecretName:\n\s+Type: String\n\s+Default: sii-gateway\n/);
  });

  it("runs the container image with its health check, and every npm script it names exists", () => {
    expect(section).toContain("docker build -t sii-gateway .");
    expect(section).toContain("/healthz");
    const scripts = JSON.parse(read("package.json")).scripts as Record<string, string>;
    for (const [, name] of section.matchAll(/npm run ([\w:-]+)/g)) expect(scripts, `npm run ${name}`).toHaveProperty(name ?? "");
  });
});
