// The knowledge the code relies on lives in docs/: every citation of a reference document in
// src/, test/, scripts/ and bench/ must name a file of docs/ and a section that file has, so a
// comment's `docs/sii-services.md §7.5` always leads to the topic it means.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const SCANNED = ["src", "test", "scripts", "bench"];
const DOCS = ["sii-services", "dte-engine"] as const;
/** This file names the old citations on purpose, to look for them. */
const SELF = relative(root, import.meta.filename);

/** Section numbers a reference document has as headings: `## 7.`, `### 7.5`, `### A.4`. */
function sectionsOf(markdown: string): Set<string> {
  const sections = new Set<string>();
  for (const line of markdown.split("\n")) {
    const heading = /^#{2,4} (?:Appendix )?([A-Z](?:\.\d+)*|\d+(?:\.\d+)*)\.?(?:\s|$)/.exec(line);
    if (heading?.[1]) sections.add(heading[1]);
  }
  return sections;
}

/** The sections one citation names: `§3.1, §3.4`, `§1–§3, §5`, `§6.1–6.3`, `§3.2,\n// §3.3, A.4`. */
function citedSections(after: string): string[] {
  // A citation's list ends at a bracket, a colon, a semicolon, a sentence's end or the next word.
  const end = after.slice(0, 120).search(/[()[\];:"`]|\.\s|[A-Za-z]{2,}/);
  const list = end === -1 ? after.slice(0, 120) : after.slice(0, end);
  const found = [
    ...[...list.matchAll(/§\s?([A-Z]\.\d+|\d+(?:\.\d+)*)/g)].map((m) => m[1]),
    ...[...list.matchAll(/[–-]\s?(\d+(?:\.\d+)*)/g)].map((m) => m[1]),
    ...[...list.matchAll(/(?:^|[\s,])([A-Z]\.\d+)/g)].map((m) => m[1]),
  ];
  return [...new Set(found.filter((s): s is string => s !== undefined))];
}

/** What is wrong with one file's citations, as `line: problem`. */
function citationProblems(text: string, sections: Record<string, Set<string>>): string[] {
  const problems: string[] = [];
  const lineOf = (index: number) => text.slice(0, index).split("\n").length;
  for (const m of text.matchAll(/sii-upstream/g)) {
    problems.push(`${lineOf(m.index)}: cites sii-upstream, which is not in the repository (use docs/sii-services.md)`);
  }
  for (const m of text.matchAll(/(?<!docs\/)dte-engine(?:\.md)?\s*§/g)) {
    problems.push(`${lineOf(m.index)}: cites dte-engine without docs/ (use docs/dte-engine.md)`);
  }
  for (const m of text.matchAll(/\bresearch:?\s*§/g)) {
    problems.push(`${lineOf(m.index)}: cites "research §", which names no document`);
  }
  for (const m of text.matchAll(/docs\/([\w-]+)\.md/g)) {
    const doc = m[1] ?? "";
    const known = sections[doc];
    if (!known) continue;
    for (const section of citedSections(text.slice(m.index + m[0].length))) {
      if (!known.has(section)) problems.push(`${lineOf(m.index)}: docs/${doc}.md has no section §${section}`);
    }
  }
  return problems;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}

/** Text files only: a NUL byte early on means binary (gzip, PFX, images). */
function textOf(path: string): string | null {
  if (statSync(path).size > 8 * 1024 * 1024) return null;
  const bytes = readFileSync(path);
  if (bytes.subarray(0, 8192).includes(0)) return null;
  return bytes.toString("latin1");
}

const sections = Object.fromEntries(DOCS.map((doc) => [doc, sectionsOf(readFileSync(join(root, "docs", `${doc}.md`), "utf8"))]));

describe("the reference documents the code cites", () => {
  it("have the section headings comments point to", () => {
    expect([...(sections["sii-services"] ?? [])]).toEqual(expect.arrayContaining(["1", "2.1", "7.5", "7.6", "8.2", "10", "12"]));
    expect([...(sections["dte-engine"] ?? [])]).toEqual(expect.arrayContaining(["1.1", "2.3", "3.5", "4", "4.6", "6.3", "A.4"]));
  });

  it("are found wrong when a citation names an old document, no document, or a section the file lacks", () => {
    expect(citationProblems("// (sii-upstream §7.5)\n// research: dte-engine §2\n/** (research §5) */", sections)).toHaveLength(3);
    expect(citationProblems("// docs/sii-services.md §99.1 and docs/dte-engine.md §3.2,\n// §3.3, §5, A.9)", sections)).toEqual([
      "1: docs/sii-services.md has no section §99.1",
      "1: docs/dte-engine.md has no section §A.9",
    ]);
    expect(citationProblems("// docs/dte-engine.md §1–§3, §5): x (docs/sii-services.md §2.3, step 1); §6.1–6.3", sections)).toEqual([]);
  });

  it("are cited from src/, test/, scripts/ and bench/ only as docs/ files and sections they have", () => {
    const problems = SCANNED.flatMap((top) =>
      filesUnder(join(root, top)).flatMap((path) => {
        const name = relative(root, path);
        if (name === SELF) return [];
        const text = textOf(path);
        return text === null ? [] : citationProblems(text, sections).map((problem) => `${name}:${problem}`);
      }),
    );
    expect(problems).toEqual([]);
  });
});
