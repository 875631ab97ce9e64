// Chilean RUT: body digits plus a check digit (0-9 or K) computed modulo 11.

export function rutCheckDigit(body: string): string {
  let sum = 0;
  let factor = 2;
  for (let i = body.length - 1; i >= 0; i--) {
    sum += Number(body[i]) * factor;
    factor = factor === 7 ? 2 : factor + 1;
  }
  const rest = 11 - (sum % 11);
  return rest === 11 ? "0" : rest === 10 ? "K" : String(rest);
}

export type RutCheck = { ok: true; rut: string } | { ok: false; reason: string };

/** Accepts `12345678-5`, `12.345.678-5` and a lower-case `k`; returns the canonical `12345678-5`. A body of zeros is refused. */
export function parseRut(input: string): RutCheck {
  const match = /^(\d{1,2}(?:\.?\d{3}){0,2}|\d{1,8})-([\dkK])$/.exec(input.trim());
  if (!match?.[1] || !match[2]) return { ok: false, reason: "must have the form XXXXXXXX-K (digits, a hyphen and the check digit)" };
  // Most RUTs come canonical: no dots, no leading zeros, an upper-case K (each rewrite skipped when not needed).
  let body = match[1];
  if (body.includes(".")) body = body.replaceAll(".", "");
  if (body.charCodeAt(0) === 0x30) body = body.replace(/^0+(?=\d)/, "");
  // 0 passes the modulo-11 check (0-0) but is nobody's RUT: the SII numbers taxpayers from 1.
  if (body === "0") return { ok: false, reason: "has the body 0, which is no taxpayer's RUT" };
  const digit = match[2] === "k" ? "K" : match[2];
  const expected = rutCheckDigit(body);
  if (digit !== expected) return { ok: false, reason: `has a wrong check digit (${digit}; ${body} takes ${expected})` };
  return { ok: true, rut: `${body}-${digit}` };
}

/** `12345678-k` as its body and its check digit in upper case: `["12345678", "K"]`. */
export function splitRut(rut: string): [string, string] {
  const [body = "", dv = ""] = rut.split("-");
  return [body, dv.toUpperCase()];
}
