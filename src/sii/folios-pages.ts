// What the folio pages (of_* stamping, af_* annulment, rf_* re-obtaining) say, read by their field
// names and checked before anything is answered from them: a number where the SII writes one, a
// range that starts no later than it ends and counts what it spans, ranges that do not overlap. A
// page that does not fit is SII_FORMAT_CHANGED, never a guess (src/sii/format-changed.ts).
import { formatChanged } from "./format-changed.ts";
import { fieldValue, type HtmlForm, readForms } from "./forms.ts";

export interface FolioRange {
  desde: number;
  hasta: number;
}

export interface RangeForm extends FolioRange {
  /** The form's fields as the page wrote them, to post back. */
  fields: [string, string][];
}

const WHOLE = /^\s*\d+\s*$/;

/** A field the SII fills with a whole number: its value, null when the page has no such field. */
export function wholeField(fields: [string, string][], name: string, service: string): number | null {
  const value = fieldValue(fields, name);
  if (value === undefined) return null;
  if (!WHOLE.test(value)) throw formatChanged(service, `${name} is not a whole number`, `${name}=${value.slice(0, 40)}`);
  return Number(value);
}

/**
 * The stamping form's limits: MAX_AUTOR (most folios one request may stamp) and FOLIOS_DISP
 * (unused folios). Either may be missing (devlas-cl/dte-sii CHANGELOG.md: FOLIOS_DISP is absent
 * when stamping is blocked); present, it must be a number.
 */
export function stampingLimits(fields: [string, string][]): { max_autor: number | null; folios_disponibles: number | null } {
  return {
    max_autor: wholeField(fields, "MAX_AUTOR", "caf_request"),
    folios_disponibles: wholeField(fields, "FOLIOS_DISP", "caf_request"),
  };
}

/** One range form's FOLIO_INI/FOLIO_FIN (and CANT_DOCTOS when it carries one), checked. */
export function rangeOf(fields: [string, string][], service: string): FolioRange {
  const desde = wholeField(fields, "FOLIO_INI", service);
  const hasta = wholeField(fields, "FOLIO_FIN", service);
  const excerpt = fields.map(([n, v]) => `${n}=${v}`).join(" ");
  if (desde === null || hasta === null) throw formatChanged(service, "a range's form has no FOLIO_INI or FOLIO_FIN", excerpt);
  if (desde < 1 || desde > hasta) throw formatChanged(service, `range ${desde}-${hasta} does not start at or before its end`, excerpt);
  const cantidad = wholeField(fields, "CANT_DOCTOS", service);
  if (cantidad !== null && cantidad !== hasta - desde + 1) {
    throw formatChanged(service, `range ${desde}-${hasta} says it holds ${cantidad} folios`, excerpt);
  }
  return { desde, hasta };
}

/**
 * The range forms of a list page (the annulment list posts to af_anular3, the re-obtaining list
 * to rf_reobtencion3_folios: sergiokml/PortalFacturas `Tabla reobtenciones.html`), each read by its
 * field names; two ranges that overlap mean the page is not read right.
 */
export function rangeForms(html: string, action: string, service: string): RangeForm[] {
  const forms = readForms(html).filter((f: HtmlForm) => f.action.split("?")[0]?.endsWith(action));
  const ranges = forms.map((f) => ({ ...rangeOf(f.fields, service), fields: f.fields }));
  const sorted = [...ranges].sort((a, b) => a.desde - b.desde);
  for (let i = 1; i < sorted.length; i++) {
    const [before, after] = [sorted[i - 1], sorted[i]];
    if (before && after && after.desde <= before.hasta) {
      throw formatChanged(service, `ranges ${before.desde}-${before.hasta} and ${after.desde}-${after.hasta} overlap`);
    }
  }
  return ranges;
}

/**
 * The SII's "ya fue autorizado el rango desde N hasta M" (devlas-cl/dte-sii CafSolicitor.js: the
 * answer when a stamping the SII already registered is asked again, e.g. after its answer was lost):
 * the range it names, `undefined` when the page does not say it, null when it says it without a range.
 */
export function alreadyAuthorized(text: string): FolioRange | null | undefined {
  if (!/ya\s+fue\s+autorizad/i.test(text)) return undefined;
  const match = /ya\s+fue\s+autorizado\s+el\s+rango\s+desde\s+(\d+)\s+hasta\s+(\d+)/i.exec(text);
  if (!match) return null;
  const desde = Number(match[1]);
  const hasta = Number(match[2]);
  return desde >= 1 && desde <= hasta ? { desde, hasta } : null;
}
