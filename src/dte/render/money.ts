// How a printout writes an amount (docs/dte-engine.md §6.1): `$ 31.500`, a space after the sign
// always, a negative one `- $ 5.950` wherever it prints; an export's currency by its Aduana name
// (`DOLAR USA 10,5`) in place of `$`, with the decimals the XML has.

/** `1234567` → `1.234.567`, `10.5` → `10,5` (Chilean separators); the sign as `-` before the digits. */
export function pesos(value: number): string {
  const sign = value < 0 ? "- " : "";
  const [whole = "0", decimals] = Math.abs(value).toString().split(".");
  return `${sign}${thousands(whole)}${decimals ? `,${decimals}` : ""}`;
}

/** `1234567` → `1.234.567`; what is not all digits (an exponent) is left as it is. */
function thousands(digits: string): string {
  if (digits.length <= 3 || !/^\d+$/.test(digits)) return digits;
  let out = digits.slice(0, digits.length % 3 || 3);
  for (let i = out.length; i < digits.length; i += 3) out += `.${digits.slice(i, i + 3)}`;
  return out;
}

/** What stands for the currency: `$` for pesos (no TpoMoneda, or the Aduana's `PESO CL`), else its name. */
export function currencySign(moneda: string | null | undefined): string {
  return !moneda || moneda === "PESO CL" ? "$" : moneda;
}

/** An amount with its currency: `$ 31.500`, `- $ 5.950`, `DOLAR USA 10,5`. */
export function money(value: number, moneda?: string | null): string {
  return `${value < 0 ? "- " : ""}${currencySign(moneda)} ${pesos(Math.abs(value))}`;
}
