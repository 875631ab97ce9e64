// POST /api/v1/sii/rcv/compras/detalle/documento/{receptor}/{periodo}/{dte}/{folio}: the purchase
// documents of a type with that folio (suppliers may share folio numbers), in whatever state.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { registerOperation } from "../../platform/operation.ts";
import { IntegerParam } from "../../platform/params.ts";
import { envelope, errorResponses, jsonBody, jsonContent, pathParams } from "../../platform/schemas.ts";
import { findPurchase } from "../../services/rcv.ts";
import { LOOKUP_BLOCK_ROWS } from "../../services/rcv-charge.ts";
import { loginOf } from "../credentials.ts";
import { AmbienteQuery, Document, Dte, MAX_FOLIO, RcvAuthBody, RcvPeriodo, Receptor } from "./schema.ts";

const Params = pathParams({
  receptor: Receptor,
  periodo: RcvPeriodo,
  dte: Dte,
  folio: IntegerParam({ min: 1, max: MAX_FOLIO, noun: "a folio", example: 1000, description: "The document's folio" }),
});

export function registerRcvComprasDetalleDocumento(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/rcv/compras/detalle/documento/{receptor}/{periodo}/{dte}/{folio}",
      tags: ["RCV"],
      summary: "One purchase document of the register, by type and folio",
      description:
        "The purchase documents of one type with one folio in the month, in whatever state (suppliers may share folio numbers, so several may match); 404 when none. " +
        `Every state's documents of the type are read to find it: charged 1 unit (the weight) per started block of ${LOOKUP_BLOCK_ROWS} documents read, taken as each state's answer arrives and before its documents are checked (a caller who cannot pay gets 429 \`QUOTA_EXCEEDED\`, and what was taken for the states already read stays charged).`,
      request: { params: Params, query: AmbienteQuery, body: jsonBody(RcvAuthBody) },
      responses: {
        200: jsonContent(
          envelope(
            z
              .object({ documentos: z.array(Document), sii: z.object({ data: z.array(z.record(z.string(), z.unknown())) }) })
              .openapi("RcvDocumento"),
          ),
          "The matching documents",
        ),
        ...errorResponses([400, 404, 422, 502, 503]),
      },
    }),
    { scope: "sii:read", weight: 1 },
    async (c) => {
      const { receptor, periodo, dte, folio } = c.req.valid("param");
      const login = await loginOf(c, c.req.valid("json").auth);
      return ok(c, await findPurchase(callerOf(c), { rut: receptor, periodo }, dte, folio, login));
    },
  );
}
