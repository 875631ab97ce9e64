// The path parameters the indicator operations share: the year of a published table, and its month.
import { IntegerParam } from "../../platform/params.ts";

/** The years the indicator operations take. */
export const FIRST_YEAR = 1900;
export const LAST_YEAR = 2100;

/** The year of a published table (`anio`). */
export const Anio = IntegerParam({
  min: FIRST_YEAR,
  max: LAST_YEAR,
  noun: "a year",
  example: 2025,
  description: `Year, ${FIRST_YEAR} to ${LAST_YEAR}; a year the SII has not published is a 404`,
});

/** A month, 1 to 12 (`mes`). */
export const Mes = IntegerParam({ min: 1, max: 12, noun: "a month", example: 3, description: "Month, 1 (January) to 12 (December)" });
