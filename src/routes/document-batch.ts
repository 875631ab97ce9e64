// An uploaded batch read under the limits of one request (src/platform/batch-limits.ts), its blocks
// charged before the XML is parsed, and the charging rule as each operation's description states it.
import type { Context } from "hono";
import type { EnvelopeContents } from "../dte/verify/envelope.ts";
import { batchYielder, yielder } from "../lib/yielder.ts";
import {
  CHARGE_BLOCK,
  CHARGE_BLOCK_LINES,
  checkDocumentCount,
  checkLines,
  checkPrintedPages,
  MAX_BATCH_DOCUMENTS,
  MAX_BATCH_LINES,
  unitsFor,
} from "../platform/batch-limits.ts";
import { fieldError } from "../platform/body-field.ts";
import { chargeUnits } from "../platform/charge.ts";
import type { AppEnv } from "../platform/context.ts";
import { readXmlField } from "./uploaded-xml.ts";

/** Lets other requests run between documents (see lib/yielder.ts). */
export { batchYielder, yielder };

/** The charging rule, as each operation's description states it; `lines`: an uploaded XML's lines count too (the reading fee: src/platform/json-body.ts). */
export const chargeRule = (weight: number, lines = false) =>
  `Charged ${weight} unit${weight === 1 ? "" : "s"} (the operation's weight) per started block of ${CHARGE_BLOCK} documents${lines ? ` or of ${CHARGE_BLOCK_LINES} Detalle lines, whichever makes more blocks` : ""}: 1–${CHARGE_BLOCK} documents ${weight}, ${CHARGE_BLOCK + 1}–${2 * CHARGE_BLOCK} ${2 * weight}, ${MAX_BATCH_DOCUMENTS} documents ${(weight * MAX_BATCH_DOCUMENTS) / CHARGE_BLOCK}${lines ? `, one document of 1 000 lines ${weight}, ${MAX_BATCH_LINES} lines ${(weight * MAX_BATCH_LINES) / CHARGE_BLOCK_LINES}` : ""}. A body over 1 MiB that is refused (4xx) costs one unit per started 512 KiB beyond the first MiB (an 18 MB upload: 33), said in \`details.unidades_cobradas\`; those units must be left before it is read (else 429 \`QUOTA_EXCEEDED\`, the body unread).`;

/** Charges the blocks beyond the first (the operation's weight, already paid): call it before the work. */
export async function chargeDocuments(c: Context<AppEnv>, weight: number, documents: number, lines = 0): Promise<void> {
  await chargeUnits(c, unitsFor(weight, documents, lines) - weight);
}

/**
 * The documents of an uploaded `xml` field (`charged` false: the limits only, as for a free preview), refused when it holds none, or more documents or
 * Detalle lines than one request may, and charged `weight` per started block of its documents or lines:
 * those are counted by the screen that reads the XML before it is parsed (every Detalle line is
 * drawn or checked, none dropped, so the whole upload must fit), so an upload over a limit, or one
 * the caller's quota cannot pay for, costs no parse, canonicalization or signature check.
 * `copies`: each document is drawn that many times (pdf's pages), so its documents and lines count
 * that many times, and more pages than MAX_PRINTED_COPIES are refused first.
 */
export async function readUploadedBatch(
  c: Context<AppEnv>,
  weight: number,
  xml: string,
  charged = true,
  copies = 1,
): Promise<EnvelopeContents> {
  const contents = await readXmlField(xml, async (kind, detalle) => {
    checkDocumentCount("xml", detalle.length, kind);
    const lines = checkLines("xml", detalle);
    checkPrintedPages(detalle.length, copies);
    if (charged) await chargeDocuments(c, weight, detalle.length * copies, lines * copies);
  });
  if (!contents.dtes.length) throw fieldError("xml", "holds no documents");
  return contents;
}
