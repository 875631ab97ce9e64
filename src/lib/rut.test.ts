import { describe, expect, it } from "vitest";
import { parseRut, rutCheckDigit } from "./rut.ts";

describe("rut", () => {
  it("computes check digits, including 0 and K", () => {
    expect(rutCheckDigit("76192083")).toBe("9");
    expect(rutCheckDigit("11111111")).toBe("1");
    expect(rutCheckDigit("10000013")).toBe("K");
    expect(rutCheckDigit("1000005")).toBe("K");
    expect(rutCheckDigit("60910000")).toBe("1");
  });

  it("normalizes dots, leading zeros and a lower-case k", () => {
    expect(parseRut("76.192.083-9")).toEqual({ ok: true, rut: "76192083-9" });
    expect(parseRut("10000013-k")).toEqual({ ok: true, rut: "10000013-K" });
    expect(parseRut("076192083-9")).toMatchObject({ ok: false });
  });

  it("refuses wrong check digits and malformed input with a reason", () => {
    const wrong = parseRut("76192083-1");
    expect(wrong).toMatchObject({ ok: false });
    expect(!wrong.ok && wrong.reason).toContain("takes 9");
    for (const bad of ["", "76192083", "76192083-", "7619208a-9", "123456789-0", "76192083 9"]) {
      expect(parseRut(bad).ok).toBe(false);
    }
  });

  it("refuses the body 0 whatever its check digit, 0-0 included (it passes the modulo 11)", () => {
    expect(rutCheckDigit("0")).toBe("0");
    for (const zero of ["0-0", "0-K", "0-k", "0-5", "00-0", "00000000-0", "0.000-0"]) {
      const parsed = parseRut(zero);
      expect(parsed, zero).toMatchObject({ ok: false });
      expect(!parsed.ok && parsed.reason, zero).toContain("body 0");
    }
    // The smallest real body still reads.
    expect(parseRut("1-9")).toEqual({ ok: true, rut: "1-9" });
    expect(parseRut("01-9")).toEqual({ ok: true, rut: "1-9" });
  });
});
