// The Worker bundle's "htmlparser2" (wrangler.toml [alias]): its Parser, the one thing linkedom
// takes from it (`const {Parser} = HTMLParser2` in linkedom's parse-from-string.js). linkedom
// imports the whole namespace, so a bundler keeps all of htmlparser2's index: DomUtils, the DOM
// serializer and a second, older copy of the `entities` tables (~85 KB minified) that nothing
// calls. bundle-aliases.test.ts bundles and runs it. The path is relative because the alias
// rewrites every "htmlparser2/..." specifier too. src/sii/html.ts takes the same Parser from here
// (`divSections`: a page's parts found by the parser linkedom's DOM is built with).
export { Parser } from "../../node_modules/htmlparser2/dist/esm/Parser.js";
