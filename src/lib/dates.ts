// Calendar words as the SII writes them.

/** January first, upper case, as in the SII's reports. */
export const MONTHS_ES = [
  "ENERO",
  "FEBRERO",
  "MARZO",
  "ABRIL",
  "MAYO",
  "JUNIO",
  "JULIO",
  "AGOSTO",
  "SEPTIEMBRE",
  "OCTUBRE",
  "NOVIEMBRE",
  "DICIEMBRE",
] as const;

const SANTIAGO = new Intl.DateTimeFormat("en-CA", { timeZone: "America/Santiago", year: "numeric", month: "2-digit", day: "2-digit" });

/** The calendar date in Chile (America/Santiago) at an instant, `YYYY-MM-DD`. */
export function santiagoDate(at: Date): string {
  return SANTIAGO.format(at);
}
