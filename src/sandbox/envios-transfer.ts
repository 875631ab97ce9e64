// The simulated SII's check of Res. Ex. SII 154/2025 on each DTE of a processed envelope (docs/dte-engine.md
// §12.6 item 6): a guía, or an invoice with TipoDespacho, dated from 2026-11-01 without its transfer data is
// rejected, its motivo naming each tag. The same rules as the normalizer's (transfer-rules.ts).
import { dteDocumentFromXml } from "../dte/normalize/from-xml.ts";
import { transferRules } from "../dte/normalize/transfer-rules.ts";
import type { DocumentSummary } from "../dte/verify/envelope.ts";

/** `Encabezado.Transporte.Chofer.RUTChofer` as the XML's path, `Detalle[0].UnmdItem` as `Detalle[1]/UnmdItem` (XPath counts from 1). */
const xmlPath = (path: string): string => path.replace(/\[(\d+)\]/g, (_, i: string) => `[${Number(i) + 1}]`).replaceAll(".", "/");

/**
 * The motivo of the rejection, or undefined when the document passes. [inferred] The SII's own code for
 * this rejection was not found: the motivo carries no numbered code rather than an invented one.
 */
export function transferMotivo(doc: Pick<DocumentSummary, "documento" | "tipo" | "fecha_emision">): string | undefined {
  const { problems } = transferRules(dteDocumentFromXml(doc), doc.tipo, doc.fecha_emision);
  if (!problems.length) return undefined;
  const each = problems.map((p) =>
    p.message.startsWith("is required") ? `falta ${xmlPath(p.path)}` : `valor no permitido en ${xmlPath(p.path)}`,
  );
  return `Traslado de bienes (Res. Ex. SII 154/2025, desde 2026-11-01): ${[...new Set(each)].join("; ")}`;
}
