// What the exchange operations share: the document a path names, the SII's code tables, and one
// call of the acceptance/claim service under the certificate's DTE token.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { SigningCredential } from "../../dte/credentials.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ApiError } from "../../platform/errors.ts";
import { Rut } from "../../platform/params.ts";
import { pathParams } from "../../platform/schemas.ts";
import type { Ambiente } from "../../sii/hosts.ts";
import { type DocumentRef, type ReclamosAnswer, type ReclamosOperation, reclamosCall } from "../../sii/reclamos.ts";
import { withDteToken } from "../credentials.ts";
import { Folio } from "../folios/schema.ts";
import { siiContext } from "../sii-context.ts";

/** Electronic document types (DTE). */
export const DTE_TYPES = [33, 34, 39, 41, 43, 46, 52, 56, 61, 110, 111, 112] as const;
/** Types that take acceptance or claim at the SII (and can be assigned). */
export const ACTIONABLE_TYPES = [33, 34, 43] as const;

export const DteType = z.coerce
  .number({ error: "must be a document type number" })
  .int()
  .refine((n) => (DTE_TYPES as readonly number[]).includes(n), { error: `must be one of ${DTE_TYPES.join(", ")}` })
  .openapi({ type: "integer", enum: [...DTE_TYPES], example: 33 });

export const DocumentParams = pathParams({ emisor: Rut, dte: DteType, folio: Folio });

/** Runs one service operation for a document with the certificate's token (renewed once if refused). */
export async function callReclamos(
  c: Context<AppEnv>,
  credential: SigningCredential,
  ambiente: Ambiente,
  operation: ReclamosOperation,
  ref: DocumentRef,
  accion?: string,
): Promise<ReclamosAnswer> {
  const ctx = await siiContext(c);
  return withDteToken(c, ctx, credential, ambiente, (token) => reclamosCall(ctx, ambiente, token, operation, ref, accion));
}

/**
 * The codResp values that are not an answer about the document itself: the SII did not find it,
 * refused the caller, or failed. Each becomes the gateway's error with the SII's text.
 */
export function failureFor(answer: ReclamosAnswer, ref: DocumentRef, service: string): ApiError | null {
  const details = { service, sii_codigo: answer.codResp, sii_message: answer.descResp };
  const doc = `document ${ref.tipo} ${ref.folio} of ${ref.emisor}`;
  switch (answer.codResp) {
    case 10:
    case 18:
      return new ApiError(404, "HTTP_404", `The SII has not received the ${doc}`, { details });
    case 14:
    case 17:
      return new ApiError(403, "AUTH_ERROR", `The certificate's holder may not act on the ${doc}`, { details });
    case 1:
    case 2:
    case 3: {
      const field = answer.codResp === 1 ? "emisor" : answer.codResp === 2 ? "folio" : "dte";
      return new ApiError(400, "VALIDATION_ERROR", `The SII refused ${field}: ${answer.descResp}`, {
        details,
        errors: [{ path: field, location: "path", message: answer.descResp }],
      });
    }
    case -1:
      return new ApiError(502, "SII_GATEWAY_ERROR", "The SII had an internal error; retry later", { details });
  }
  return Number.isNaN(answer.codResp) ? new ApiError(502, "SII_GATEWAY_ERROR", "The SII's answer has no codResp", { details }) : null;
}
