// The folio ledger operations' path parameters; the answers' schemas are shared with caf/solicitar
// (src/routes/folio-ledger-schema.ts), what the operations do is the ledger service's.
import { Rut } from "../../platform/params.ts";
import { pathParams } from "../../platform/schemas.ts";
import { DocumentType } from "../folio-fields.ts";

export const LedgerParams = pathParams({
  // The example: the sandbox company, type 34, as the example CAF (src/routes/documentos/examples.ts).
  emisor: Rut.meta({ description: "The issuer the CAFs were granted to", example: "76192083-9" }),
  dte: DocumentType.meta({ example: 34 }),
});
