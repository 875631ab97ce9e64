// workerd names countries as Node does: the printout's country names come from the runtime's ICU.
import { describe, expect, it } from "vitest";
import { countryLabel } from "../../src/dte/render/countries.ts";

describe("Aduana country codes in workerd", () => {
  it("names a country in Spanish from its code", () => {
    expect(countryLabel("225")).toBe("Estados Unidos (225)");
    expect(countryLabel("517")).toBe("España (517)");
  });
});
