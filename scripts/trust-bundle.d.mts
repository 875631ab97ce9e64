// Types of trust-bundle.mjs, for the test that checks the generated module against the fixtures.
/** Fixture file names left out of the bundle, with why. */
export const LEFT_OUT: Record<string, string>;
/** The fixture files the bundle carries, sorted. */
export function bundledFiles(): string[];
/** Their certificates' DER, in that order. */
export function bundledDer(): Buffer[];
