// POST /api/v1/platform/dte/folios/{emisor}/{dte}: adds a CAF to the account's folio ledger after
// reading it as generar does (the SII's signature over the one parsed DA, no comments, no second
// DA or FRMA), checking it was granted to this issuer for this type and overlaps no range held.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { CafError, cafVence, readCaf } from "../../dte/generate/caf.ts";
import { parseRut } from "../../lib/rut.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { ApiError } from "../../platform/errors.ts";
import { registerOperation, valid } from "../../platform/operation.ts";
import { errorResponses, jsonBody, jsonContent } from "../../platform/schemas.ts";
import { trustedCafKeys } from "../documentos/caf-keys.ts";
import { EXAMPLE_CAF } from "../documentos/examples.ts";
import { AddedEnvelope, accountOf, LedgerParams, ledgerView, sealCaf } from "./schema.ts";

/** A CAF file is a few kB; the SII's largest ranges do not make it bigger. */
const CAF_MAX_CHARS = 64 * 1024;

const Body = z
  .object({
    caf: z.string().min(1).max(CAF_MAX_CHARS).openapi({
      description: "The CAF file as the SII delivers it (`AUTORIZACION` with its private key), base64 of its bytes (raw XML is read too)",
      example: EXAMPLE_CAF,
    }),
  })
  .strict();

const fieldError = (path: string, message: string) =>
  new ApiError(400, "VALIDATION_ERROR", `${path} ${message}`, { errors: [{ path, location: "body", message }] });

export function registerFoliosLedgerPost(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/platform/dte/folios/{emisor}/{dte}",
      tags: ["Folios"],
      summary: "Add a CAF to the account's folio ledger",
      description:
        "Reads the CAF as `documentos/generar` does (the SII's signature over its `DA`, read from the parsed file; a comment, a processing instruction or a second `DA` or `FRMA` is refused) and keeps it for this account, its private key sealed at rest and never answered. A CAF of another issuer or type is a 400 naming the field; a range sharing folios with one already held is a 409 `FOLIOS_OVERLAP` naming that range. Answers the range added and the ledger as `GET` does. Nothing is sent to the SII.",
      request: { params: LedgerParams, body: jsonBody(Body) },
      responses: { 200: jsonContent(AddedEnvelope, "The range added, and what the ledger now holds"), ...errorResponses([400, 409, 422]) },
    }),
    { scope: "sii:write", weight: 1 },
    async (c) => {
      const { emisor, dte } = valid(c, "param", LedgerParams);
      const { caf: file } = valid(c, "json", Body);
      let caf: Awaited<ReturnType<typeof readCaf>>;
      try {
        caf = await readCaf(file, "caf", trustedCafKeys(c));
      } catch (error) {
        if (!(error instanceof CafError)) throw error;
        throw fieldError(error.problem.path, error.problem.message);
      }
      const granted = parseRut(caf.re);
      if (!granted.ok || granted.rut !== emisor)
        throw fieldError("caf.DA.RE", `is ${caf.re}: the CAF was granted to another issuer than ${emisor}`);
      if (caf.td !== dte) throw fieldError("caf.DA.TD", `is ${caf.td}: the CAF is for another document type than ${dte}`);
      const range = { desde: caf.desde, hasta: caf.hasta, autorizado: caf.fa, vence: cafVence(caf.td, caf.fa) };
      const added = await c.var.deps.folios.add(accountOf(c), emisor, dte, { ...range, caf: await sealCaf(c, file) });
      if (added.state === "overlap") {
        throw new ApiError(
          409,
          "FOLIOS_OVERLAP",
          `Folios ${caf.desde}–${caf.hasta} overlap the range ${added.desde}–${added.hasta} this account already holds for ${emisor}, type ${dte}`,
          { details: { desde: added.desde, hasta: added.hasta } },
        );
      }
      const view = ledgerView(added.rangos, c.var.deps.clock.now().toISOString().slice(0, 10));
      const rango = view.rangos.find((r) => r.desde === caf.desde) ?? view.rangos[0];
      return ok(c, { ...view, rango }, `Folios ${caf.desde} to ${caf.hasta} added`);
    },
  );
}
