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

// The formatters are made on first use: the first one loads the time-zone data, which at module
// load cost every Worker start-up ~7 ms whether or not the request needed a date.
let SANTIAGO: Intl.DateTimeFormat | undefined;

/** The calendar date in Chile (America/Santiago) at an instant, `YYYY-MM-DD`. */
export function santiagoDate(at: Date): string {
  SANTIAGO ??= new Intl.DateTimeFormat("en-CA", { timeZone: "America/Santiago", year: "numeric", month: "2-digit", day: "2-digit" });
  return SANTIAGO.format(at);
}

let OFFSET: Intl.DateTimeFormat | undefined;

/** A Chile wall-clock time `YYYY-MM-DDTHH:MM:SS` as ISO 8601 with the offset Chile had then. */
export function santiagoIso(local: string): string {
  // Chile is 3 or 4 hours behind UTC: the offset at local time + 4 h is the one in force.
  const instant = new Date(`${local}Z`).getTime() + 4 * 60 * 60 * 1000;
  OFFSET ??= new Intl.DateTimeFormat("en-US", { timeZone: "America/Santiago", timeZoneName: "longOffset" });
  const zone = OFFSET.formatToParts(new Date(instant)).find((p) => p.type === "timeZoneName")?.value ?? "GMT";
  return `${local}${zone === "GMT" ? "Z" : zone.slice(3)}`;
}

let SANTIAGO_TIME: Intl.DateTimeFormat | undefined;

/** The wall-clock time in Chile at an instant, `YYYY-MM-DD HH:MM:SS`. */
export function santiagoDateTime(at: Date): string {
  SANTIAGO_TIME ??= new Intl.DateTimeFormat("en-CA", {
    timeZone: "America/Santiago",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  });
  const p = Object.fromEntries(SANTIAGO_TIME.formatToParts(at).map((part) => [part.type, part.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}
