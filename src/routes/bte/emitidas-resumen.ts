// POST /api/v1/sii/bte/emitidas/resumen/{anio}: the year's BTEs issued, month by month. The
// issuer is the one of the credentials, never the path.
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { csvText } from "../../lib/csv.ts";
import { encodeLatin1 } from "../../lib/latin1.ts";
import { callerOf } from "../../platform/caller.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ok } from "../../platform/envelope.ts";
import { contentDispositionHeader, fileAnswer } from "../../platform/file-answer.ts";
import { responseFormat } from "../../platform/negotiation.ts";
import { registerOperation } from "../../platform/operation.ts";
import { BYTES, envelope, errorResponses, jsonBody } from "../../platform/schemas.ts";
import { issuedBteSummary } from "../../services/bte.ts";
import { Body, Params, Query } from "./schema.ts";

const Totals = {
  folios: z.number().int().register(z.globalRegistry, {
    description:
      "Slips issued: valid plus annulled. The SII's page has no count column; it shows the first and last folio, and the gateway checks this count against that range",
  }),
  vigentes: z.number().int().register(z.globalRegistry, { description: "Of them still valid (the page's Vigentes)" }),
  anuladas: z.number().int().register(z.globalRegistry, { description: "Of them annulled (the page's Nulas)" }),
  bruto: z.number().register(z.globalRegistry, { description: "Gross amount, CLP" }),
  retencion: z.number().register(z.globalRegistry, { description: "Withheld, CLP" }),
  total: z.number().register(z.globalRegistry, { description: "Net (the page's Total líquido: gross less withholding, checked), CLP" }),
};

export const Summary = envelope(
  z
    .object({
      anio: z.number().int(),
      emisor: z.string().register(z.globalRegistry, { description: "The issuer: the RUT of the credentials" }),
      mensual: z
        .array(
          z.object({
            mes: z.number().int().min(1).max(12),
            nombre_mes: z.string().register(z.globalRegistry, { example: "ENERO" }),
            ...Totals,
          }),
        )
        .max(12)
        .register(z.globalRegistry, { description: "One row per month with movements (at most 12); empty for a year without any" }),
      anual: z
        .object(Totals)
        .register(z.globalRegistry, { description: "The year's consolidated totals (zeros for a year without movements)" }),
    })
    .openapi("BteAnnualSummary"),
);

export function registerBteEmitidasResumen(app: OpenAPIHono<AppEnv>): void {
  registerOperation(
    app,
    createRoute({
      method: "post",
      path: "/api/v1/sii/bte/emitidas/resumen/{anio}",
      tags: ["BTE"],
      summary: "Annual summary of issued BTEs",
      description:
        "The year's boletas de prestación de servicios de terceros (BTE) the taxpayer of the clave issued, per month and for the year: counts, gross amount, withholding and paid, in CLP. The issuer is always the clave's taxpayer. `formato=html` returns the SII's page as received and `formato=csv` its summary table (the SII offers no CSV of its own), both ISO-8859-1. The page's columns are found by their header labels and its rows checked (months once each, gross less withholding equal to net, the totals row equal to the months' sum); a page that does not fit is a 502 `SII_FORMAT_CHANGED` naming the failed check, never a 200.",
      request: { params: Params, query: Query, body: jsonBody(Body) },
      responses: {
        200: {
          description:
            "The summary (JSON), or the SII's output (`text/csv` / `text/html`, ISO-8859-1): the page inline as `bte-emitidas-<RUT>-<anio>.html`, the CSV an attachment `bte-emitidas-<RUT>-<anio>.csv`; in the CSV a cell a spreadsheet would read as a formula (other than a plain number) gets a leading `'`",
          headers: contentDispositionHeader('attachment; filename="bte-emitidas-12345678-5-2025.csv"'),
          content: {
            "application/json": { schema: Summary },
            "text/csv": { schema: BYTES },
            "text/html": { schema: BYTES },
          },
        },
        ...errorResponses([400, 422, 502, 503]),
      },
    }),
    { scope: "sii:read", weight: 2 },
    async (c) => {
      const { anio } = c.req.valid("param");
      const query = c.req.valid("query");
      const { csv_delimiter } = query;
      const formato = responseFormat(c, query.formato, { json: "application/json", csv: "text/csv", html: "text/html" });
      const { pass } = c.req.valid("json").auth;
      const summary = await issuedBteSummary(callerOf(c), pass, anio);
      const name = `bte-emitidas-${pass.rut}-${anio}`;
      if (formato === "html") {
        return fileAnswer(c, encodeLatin1(summary.page), {
          type: "text/html; charset=ISO-8859-1",
          disposition: "inline",
          name: `${name}.html`,
        });
      }
      if (formato === "csv") {
        const csv = encodeLatin1(csvText(summary.cells, csv_delimiter));
        return fileAnswer(c, csv, { type: "text/csv; charset=ISO-8859-1", disposition: "attachment", name: `${name}.csv` });
      }
      return ok(c, summary.data, summary.message);
    },
  );
}
