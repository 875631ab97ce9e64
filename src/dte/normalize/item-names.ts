// Over-long item names (normalize.ts, step 0b). Res. Ex. SII N° 36 of 15 March 2024 (in force 1 July 2024)
// asks the Detalle's "Nombre del Ítem" to name the goods or services clearly and, when that takes more than 80
// characters, to go on in the same line's "Descripción Adicional": NmbItem (80 in DTE_v10.xsd and
// EnvioBOLETA_v11.xsd) keeps the name's start and DscItem (1000) opens with the rest, rather than the rest being
// cut off. The resolution names facturas, notas de crédito y débito, guías, facturas de compra and
// liquidaciones-factura; boletas and exports have the same two fields and limits, and get the same move.
// Source: the resolution's text as quoted by circuloverde.cl and blogcicfin.iconstruye.com (docs/dte-engine.md §4.3).
import type { DocContext } from "./context.ts";
import { TEXT_LIMITS } from "./fields.ts";

const NAME_MAX = TEXT_LIMITS.NmbItem as number;
const DESCRIPTION_MAX = TEXT_LIMITS.DscItem as number;
/** A cut at a word boundary must leave a name this long; a shorter one is cut at 80, inside a word. */
const MIN_NAME_AT_SPACE = 40;

/**
 * The name's first part (at most 80 characters, ending at the last space at or before the 80th when that
 * leaves 40 or more) and the rest, trimmed. Lengths count characters: the text is sanitized to ISO-8859-1
 * already, one character a UTF-16 unit, as the other text limits count (sanitize.ts).
 */
export function splitItemName(name: string): { name: string; rest: string } {
  if (name.length <= NAME_MAX) return { name, rest: "" };
  const space = name.lastIndexOf(" ", NAME_MAX);
  const atSpace = space === -1 ? "" : name.slice(0, space).trimEnd();
  const head = atSpace.length >= MIN_NAME_AT_SPACE ? atSpace : name.slice(0, NAME_MAX).trimEnd();
  return { name: head, rest: name.slice(head.length).trim() };
}

/** Each line's over-long `NmbItem` split, its rest opening `DscItem`; refused naming the name when `DscItem` would pass 1000. */
export function moveLongItemNames(doc: DocContext): void {
  doc.lines.forEach((line, i) => {
    const given = line.NmbItem;
    if (typeof given !== "string" || given.length <= NAME_MAX) return;
    const description = line.DscItem;
    // Anything else where DscItem goes is refused later, by its own path.
    if (description !== undefined && typeof description !== "string" && typeof description !== "number") return;
    const { name, rest } = splitItemName(given);
    const joined = description === undefined ? rest : `${rest} ${description}`;
    const path = `Detalle[${i}].NmbItem`;
    if (joined.length > DESCRIPTION_MAX) {
      doc.problems.push({
        path,
        message:
          `is ${given.length} characters: past the first ${name.length} it goes on in DscItem (Res. Ex. SII N° 36 de 2024), ` +
          `which would then be ${joined.length} characters, beyond the schema's ${DESCRIPTION_MAX}`,
      });
      return;
    }
    line.NmbItem = name;
    line.DscItem = joined;
    doc.warnings.push(
      `${path} cut to ${name.length} characters, ${JSON.stringify(rest)} moved to the start of Detalle[${i}].DscItem (Res. Ex. SII N° 36 de 2024: a name past 80 characters goes on in DscItem)`,
    );
  });
}
