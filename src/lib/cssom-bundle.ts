// The Worker bundle's "@acemir/cssom" (wrangler.toml [alias]). linkedom imports its CSS parser for
// one thing: the `sheet` getter of <style> elements. The gateway reads the SII's pages for their
// text, tables and form fields and never asks a style element for its sheet, so the parser (~79 KB
// minified) stays out of the Worker; asking says why instead of parsing. bundle-aliases.test.ts
// checks that no source reads `.sheet`, and that pages with <style> elements still parse.
export function parse(): never {
  throw new Error("CSS style sheets are not parsed in the Worker bundle (see src/lib/cssom-bundle.ts)");
}
