// The normalizer's arithmetic helpers, shared by the per-type rules.

/**
 * A number written as text the sanitizer reads (no exponent). One way to match each string:
 * `\d+\.?\d*` split a long run of digits every possible way before failing.
 */
export const NUMERIC_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/** A number from a number or a numeric string; undefined otherwise. */
export const num = (value: unknown): number | undefined => {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  return undefined;
};

/** Half away from zero, to `decimals` places (PHP's round, which the reference uses). */
export const round = (value: number, decimals = 0): number => {
  const factor = 10 ** decimals;
  return (Math.sign(value) * Math.round(Math.abs(value) * factor)) / factor;
};
