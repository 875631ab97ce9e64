// The exchange operations, with no HTTP: the SII's acceptance/claim service asked with the
// certificate's DTE token (src/sii/intercambios.ts), about one document (whether it can be
// assigned, its events, its reception) or to register the receiver's action on a batch of them.
import type { SigningCredential } from "../certificates/credentials.ts";
import type { Caller } from "../platform/caller.ts";
import { ApiError } from "../platform/errors.ts";
import type { Ambiente } from "../sii/hosts.ts";
import type { SiiContext } from "../sii/http.ts";
import { type DocumentRef, docAssignability, docEvents, docReceptionDate, docResponse } from "../sii/intercambios.ts";
import { siiServicesFor } from "./sii-context.ts";

/** Runs `use` with the certificate's DTE token (renewed once if the SII refuses it). */
async function withReclamosToken<T>(
  caller: Caller,
  credential: SigningCredential,
  ambiente: Ambiente,
  use: (ctx: SiiContext, token: string) => Promise<T>,
): Promise<T> {
  const { ctx, sessions } = await siiServicesFor(caller);
  return sessions.withDteToken(credential, ambiente, (token) => use(ctx, token));
}

/** A document as the operations name it. */
export interface Document {
  emisor: string;
  dte: number;
  folio: number;
}

const refOf = (doc: Document): DocumentRef => ({ emisor: doc.emisor, tipo: doc.dte, folio: doc.folio });

/** A question about one document, answered by the SII with `credential`'s token. */
export type DocumentQuestion<D extends object> = (
  caller: Caller,
  credential: SigningCredential,
  ambiente: Ambiente,
  doc: Document,
) => Promise<Document & D>;

/** The document with the answer of `sii` (a src/sii/intercambios.ts query) about it. */
const question =
  <D extends object>(sii: (ctx: SiiContext, ambiente: Ambiente, token: string, ref: DocumentRef) => Promise<D>): DocumentQuestion<D> =>
  async (caller, credential, ambiente, doc) => {
    const answer = await withReclamosToken(caller, credential, ambiente, (ctx, token) => sii(ctx, ambiente, token, refOf(doc)));
    return { emisor: doc.emisor, dte: doc.dte, folio: doc.folio, ...answer };
  };

/** Whether the document can be assigned (`cedible`). */
export const documentAssignability = question(docAssignability);
/** The document's events, oldest first. */
export const documentEvents = question(docEvents);
/** When the SII received the document. */
export const documentReception = question(docReceptionDate);

export const RESULTADOS = ["registrado", "ya_registrado", "rechazado", "error", "no_enviado"] as const;
type Resultado = (typeof RESULTADOS)[number];

/** A document and the receiver's action on it (`ERM`, `ACD`, `RCD`, `RFP`, `RFT`). */
export interface DocumentAction extends Document {
  accion: string;
}

/** A document's answer under the SII's names (`codResp`, `descResp`) and the earlier aliases. */
const answered = (codResp: number | null, descResp: string | null) => ({ codResp, descResp, codigo: codResp, glosa: descResp });

/**
 * Registers each document's action at the SII, in order, never retried. A batch stops at the first
 * upstream failure (that document `error`, the rest `no_enviado`), unless it is the first
 * document's: nothing was registered, so that failure is thrown. `dryRun` sends nothing.
 */
export async function respondToDocuments(
  caller: Caller,
  credential: SigningCredential,
  ambiente: Ambiente,
  documentos: DocumentAction[],
  dryRun: boolean,
) {
  const results: (DocumentAction & { resultado: Resultado } & ReturnType<typeof answered>)[] = [];
  let stopped = dryRun;
  for (const doc of documentos) {
    if (stopped) {
      results.push({ ...doc, resultado: "no_enviado", ...answered(null, null) });
      continue;
    }
    try {
      const answer = await withReclamosToken(caller, credential, ambiente, (ctx, token) =>
        docResponse(ctx, ambiente, token, refOf(doc), doc.accion),
      );
      results.push({ ...doc, resultado: answer.resultado, ...answered(answer.codResp, answer.descResp) });
    } catch (err) {
      // Nothing was registered yet: the caller gets the upstream failure itself.
      if (!(err instanceof ApiError) || results.length === 0) throw err;
      results.push({ ...doc, resultado: "error", ...answered(null, err.message) });
      stopped = true;
    }
  }
  const count = (r: Resultado) => results.filter((d) => d.resultado === r).length;
  return {
    documentos: results,
    registrados: count("registrado"),
    ya_registrados: count("ya_registrado"),
    rechazados: count("rechazado"),
    errores: count("error"),
    no_enviados: count("no_enviado"),
  };
}
