// The captured SII answers (test/fixtures/sii/captured): the manifest names every file and only
// files that are there, each under a service the sandbox knows, and the gateway's reader of that
// service runs on every one of them.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { csvDocuments } from "../../src/sii/rcv.ts";

const root = join(import.meta.dirname, "..", "fixtures", "sii", "captured");
/** The folder's own notes, not captured answers. */
const NOTES = new Set(["FACTS.md", "LICENSES.md", "manifest.json"]);
const KEYS = new Set(["service", "file", "source", "licence", "kind", "note"]);
/** Licences that allow copying a file into the project (GPL, AGPL and no licence do not). */
const COPYABLE = new Set(["MIT", "BSD-2-Clause", "BSD-3-Clause", "Apache-2.0", "ISC", "CC0-1.0", "public domain"]);

interface Entry {
  service: string;
  file: string;
  source: string;
  licence: string;
  kind: string;
  note?: string;
}

const manifest = JSON.parse(readFileSync(join(root, "manifest.json"), "utf8")) as Entry[];

function filesUnder(dir: string, prefix = ""): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    const relative = prefix ? `${prefix}/${name}` : name;
    return statSync(path).isDirectory() ? filesUnder(path, relative) : [relative];
  });
}

/**
 * The service names of /sandbox/v1/faults: every `service("…", …)` the sandbox app registers, and
 * the certification routes it registers from their table.
 */
/** The services the sandbox answers, as it lists them itself. */
function sandboxServices(): Set<string> {
  return new Set(createDefaultSandbox({}).services());
}

describe("the captured fixtures' manifest", () => {
  it("lists every file of the folder once, and nothing else", () => {
    const onDisk = filesUnder(root)
      .filter((f) => !NOTES.has(f))
      .sort();
    const listed = manifest.map((e) => e.file);
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort()).toEqual(onDisk);
    for (const entry of manifest) expect(existsSync(join(root, entry.file)), entry.file).toBe(true);
  });

  it("names, for each file, a service the sandbox knows, its folder, its source with a commit, and a licence that allows the copy", () => {
    const services = sandboxServices();
    // The sandbox's own list is read, not assumed: these are among its names.
    expect(services).toContain("rcv_export");
    expect(services).toContain("certification_set");
    for (const entry of manifest) {
      expect(
        Object.keys(entry).every((k) => KEYS.has(k)),
        entry.file,
      ).toBe(true);
      expect(services.has(entry.service), `${entry.file}: ${entry.service}`).toBe(true);
      expect(entry.file.startsWith(`${entry.service}/`), entry.file).toBe(true);
      expect(entry.source, entry.file).toMatch(/^[\w.-]+\/[\w.-]+ \S+ @ [0-9a-f]{40}$/);
      expect(COPYABLE.has(entry.licence), `${entry.file}: ${entry.licence}`).toBe(true);
      expect(entry.kind).toBe("captured");
    }
  });

  it("credits every source in the fixtures README and carries the licence text its licence requires", () => {
    const readme = readFileSync(join(root, "..", "..", "README.md"), "utf8");
    const licences = readFileSync(join(root, "LICENSES.md"), "utf8");
    for (const entry of manifest) {
      const [repository, , commit] = entry.source.split(" ");
      expect(readme, entry.file).toContain(repository);
      expect(readme, entry.file).toContain(`${commit?.slice(0, 8)}`);
      if (entry.licence === "MIT") expect(licences).toContain(repository);
    }
  });

  it("quotes cordada's copyright notice as its LICENSE holds it wherever a fixtures README credits cordada", () => {
    const licences = readFileSync(join(root, "LICENSES.md"), "utf8");
    const notice = /## cordada\/lib-cl-sii-python[\s\S]*?(Copyright \(c\) [^\n]+)/.exec(licences)?.[1] ?? "";
    expect(notice).toBe("Copyright (c) 2020, Fyntex TI SpA");
    for (const readme of [join(root, "..", "..", "README.md"), join(root, "..", "rcv", "README.md")]) {
      const lines = readFileSync(readme, "utf8").split("\n");
      const credits = lines.filter((line, i) => /©|copyright/i.test(line) && /cordada/i.test(`${lines[i - 2]}${lines[i - 1]}${line}`));
      expect(credits.length, readme).toBeGreaterThan(0);
      for (const line of credits) expect(line, readme).toContain(notice);
    }
  });
});

/** A captured RCV detail file's lines (header first), as the SII's export writes them. */
const linesOf = (file: string) =>
  readFileSync(join(root, file), "latin1")
    .split(/\r?\n/)
    .filter((line) => line.trim() !== "");

/** A cell as the SII's export writes it: trimmed, unquoted; `null` and `-` stand for empty. */
const cellValue = (text: string | undefined) => {
  const value = (text ?? "")
    .trim()
    .replace(/^"(.*)"$/, "$1")
    .trim();
  return value === "null" || value === "-" ? "" : value;
};
const amount = (text: string) => Number(text) || 0;

describe("the RCV detail reader on every captured export", () => {
  const exports = manifest.filter((e) => e.service === "rcv_export");

  it("has captured exports to read", () => {
    expect(exports.length).toBeGreaterThan(0);
  });

  for (const entry of exports) {
    it(`${entry.file}: one document per numbered line, each with the values under its headers`, async () => {
      const [header = "", ...rows] = linesOf(entry.file);
      const columns = header.split(";").map((c) => c.trim());
      expect(columns[0]).toBe("Nro");
      // The test's own reading of each numbered line by its header's labels (purchases and sales
      // name the counterpart's RUT and the VAT differently; purchases add columns in some states).
      const at = (row: string[], ...labels: string[]) => {
        const i = columns.findIndex((c) => labels.includes(c));
        expect(i, `${entry.file}: ${labels.join(" / ")}`).toBeGreaterThanOrEqual(0);
        return cellValue(row[i]);
      };
      const purchases = columns.includes("RUT Proveedor");
      const expected = rows
        .map((line) => line.split(";"))
        .filter((row) => cellValue(row[0]) !== "")
        .map((row) => ({
          tipo_documento: amount(at(row, "Tipo Doc")),
          folio: amount(at(row, "Folio")),
          rut: at(row, "RUT Proveedor", "Rut cliente"),
          monto_neto: amount(at(row, "Monto Neto")),
          monto_iva: amount(at(row, "Monto IVA Recuperable", "Monto IVA")),
          // Purchases only: the VAT that gives no credit (all of it in NO_INCLUIR); sales have no such column.
          monto_iva_no_recuperable: purchases ? amount(at(row, "Monto Iva No Recuperable")) : 0,
          monto_total: amount(at(row, "Monto Total", "Monto total")),
        }));
      const docs = [];
      for await (const doc of csvDocuments([header, ...rows], "REGISTRO", undefined, purchases ? "COMPRA" : "VENTA")) docs.push(doc);
      // A line with an empty Nro continues the document before it (its other taxes).
      expect(docs).toHaveLength(expected.length);
      expect(
        docs.map(({ tipo_documento, folio, rut, monto_neto, monto_iva, monto_iva_no_recuperable, monto_total }) => ({
          tipo_documento,
          folio,
          rut,
          monto_neto,
          monto_iva,
          monto_iva_no_recuperable,
          monto_total,
        })),
      ).toEqual(expected);
    });
  }
});
