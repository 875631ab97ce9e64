// The BTE operation's request: the year in the path, the answer's format, the clave.
import { z } from "@hono/zod-openapi";
import { Formato, IntegerParam } from "../../platform/params.ts";
import { PassOnlyAuth } from "../credentials.ts";
import { EXAMPLE_CLAVE } from "../example-credentials.ts";

/** The first year of the SII's BTE (boletas de prestación de servicios de terceros) tables. */
const FIRST_BTE_YEAR = 2005;

export const Params = z.object({
  anio: IntegerParam({
    min: FIRST_BTE_YEAR,
    max: 2100,
    noun: "a year",
    example: 2025,
    description: `Year, ${FIRST_BTE_YEAR} (the BTE's first year in the SII) to 2100; a year without slips is a 200 with zeros`,
  }),
});

export const Query = z.object({
  formato: Formato(["json", "csv", "html"]),
  csv_delimiter: z
    .string()
    .max(1)
    .regex(/^[^\s"'\r\n]$/, { error: "must be one character (not a quote, space or line break)" })
    .default(";")
    .register(z.globalRegistry, {
      description: "Field delimiter when `formato=csv`: one character, not a quote, space or line break (default `;`)",
      example: ";",
    }),
});

export const Body = z.object({ auth: PassOnlyAuth }).openapi("BteSummaryRequest", { example: { auth: { pass: EXAMPLE_CLAVE } } });
