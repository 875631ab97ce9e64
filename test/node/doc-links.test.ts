// Every relative link in the repository's Markdown (README, ARCHITECTURE, docs/, bench/README.md,
// the fixtures' notes) must lead somewhere: the file exists, and a `#anchor` names a heading of it
// as GitHub renders the anchor. README is an entry page whose links carry the rest.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

/** The text a reader sees as prose: fenced blocks and inline code spans removed (links there are not links). */
function prose(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, "").replace(/`[^`\n]*`/g, "");
}

/** Link targets of a Markdown text: inline `[text](target)` and reference definitions `[id]: target`. */
function linksOf(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? "");
  const reference = [...text.matchAll(/^[ \t]{0,3}\[[^\]\n]+\]:[ \t]*<?([^\s>]+)>?(?:[ \t]|$)/gm)].map((m) => m[1] ?? "");
  return [...inline, ...reference];
}

/** Heading anchors as GitHub makes them: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, "").split("\n")) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = (heading[1] ?? "")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** What is wrong with one relative link of `file` (a path relative to the repository), or null. */
function linkProblem(file: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null; // https:, mailto: and the like
  const [path = "", anchor] = target.split("#");
  const resolved = path === "" ? join(root, file) : join(root, dirname(file), decodeURI(path));
  if (!existsSync(resolved)) return `${target}: no file ${relative(root, resolved)}`;
  if (anchor === undefined || anchor === "") return null;
  if (statSync(resolved).isDirectory() || !resolved.endsWith(".md")) return `${target}: an anchor into a file that is no Markdown`;
  return anchorsOf(readFileSync(resolved, "utf8")).has(anchor) ? null : `${target}: no heading #${anchor} in ${relative(root, resolved)}`;
}

describe("links between the repository's documents", () => {
  it("are found as a reader sees them: inline, by reference, not inside code", () => {
    const sample = "See [a](docs/a.md#x) and `[b](not/a/link.md)`.\n```\n[c](nor/this.md)\n```\n[d]: ../e.md\n";
    expect(linksOf(sample)).toEqual(["docs/a.md#x", "../e.md"]);
    expect([...anchorsOf("# Checking the SII: `npm run live-check`\n## Quota\n## Quota\n")]).toEqual([
      "checking-the-sii-npm-run-live-check",
      "quota",
      "quota-1",
    ]);
    expect(linkProblem("README.md", "docs/no-such-page.md")).toMatch(/no file docs\/no-such-page\.md/);
    expect(linkProblem("README.md", "docs/operations.md#no-such-heading")).toMatch(/no heading #no-such-heading/);
    expect(linkProblem("README.md", "docs/operations.md#rcv")).toBeNull();
  });

  it("resolve: every relative link names a file that exists and a heading it has", () => {
    const files = markdownFiles(root).map((path) => relative(root, path));
    expect(files).toEqual(expect.arrayContaining(["README.md", "ARCHITECTURE.md", "docs/operations.md", "bench/README.md"]));
    const problems = files.flatMap((file) =>
      linksOf(readFileSync(join(root, file), "utf8")).flatMap((target) => {
        const problem = linkProblem(file, target);
        return problem ? [`${file}: ${problem}`] : [];
      }),
    );
    expect(problems).toEqual([]);
  });

  it("lead from README to every page of docs/ and to bench/README.md", () => {
    const linked = new Set(linksOf(readFileSync(join(root, "README.md"), "utf8")).map((target) => target.split("#")[0]));
    const pages = readdirSync(join(root, "docs")).filter((name) => name.endsWith(".md"));
    for (const page of [...pages.map((name) => `docs/${name}`), "bench/README.md", "ARCHITECTURE.md"]) {
      expect(linked, `README links ${page}`).toContain(page);
    }
  });
});
