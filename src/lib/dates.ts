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

const OFFSET = new Intl.DateTimeFormat("en-US", { timeZone: "America/Santiago", timeZoneName: "longOffset" });

/** A Chile wall-clock time `YYYY-MM-DDTHH:MM:SS` as ISO 8601 with the offset Chile had then. */
export function santiagoIso(local: string): string {
  // Chile is 3 or 4 hours behind UTC: the offset at local time + 4 h is the one in force.
  const instant = new Date(`${local}Z`).getTime() + 4 * 60 * 60 * 1000;
  const zone = OFFSET.formatToParts(new Date(instant)).find((p) => p.type === "timeZoneName")?.value ?? "GMT";
  return `${local}${zone === "GMT" ? "Z" : zone.slice(3)}`;
}

const SANTIAGO_TIME = new Intl.DateTimeFormat("en-CA", {
  timeZone: "America/Santiago",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hourCycle: "h23",
});

/** The wall-clock time in Chile at an instant, `YYYY-MM-DD HH:MM:SS`. */
export function santiagoDateTime(at: Date): string {
  const p = Object.fromEntries(SANTIAGO_TIME.formatToParts(at).map((part) => [part.type, part.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}
