import { describe, expect, it } from "vitest";
import { Ambiente, DryRun, Formato, Periodo, parseDryRun, Rut } from "./params.ts";

describe("shared parameters", () => {
  it("ambiente: 0 by default, 0 or 1, nothing else", () => {
    expect(Ambiente.parse(undefined)).toBe("0");
    expect(Ambiente.parse("1")).toBe("1");
    for (const bad of ["2", "", "prod", "01"]) expect(Ambiente.safeParse(bad).success).toBe(false);
  });

  it("dry_run: true|1|yes|on in any case are true; absent, false|0|no|off false; else an error", () => {
    for (const yes of ["true", "1", "yes", "on", "TRUE", "Yes", "oN"]) expect(DryRun.parse(yes)).toBe(true);
    for (const no of [undefined, "false", "0", "no", "off", "OFF"]) expect(DryRun.parse(no)).toBe(false);
    for (const bad of ["maybe", "2", "tru", "", " on ", "true "]) {
      expect(parseDryRun(bad)).toBeNull();
      expect(DryRun.safeParse(bad).success).toBe(false);
    }
  });

  it("formato: first value by default, only the listed values", () => {
    const f = Formato(["json", "csv", "html"]);
    expect(f.parse(undefined)).toBe("json");
    expect(f.parse("csv")).toBe("csv");
    const bad = f.safeParse("xml");
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toBe("must be one of json, csv, html");
  });

  it("rut: check digit verified and normalized", () => {
    expect(Rut.parse("76.192.083-9")).toBe("76192083-9");
    const bad = Rut.safeParse("76192083-K");
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toContain("check digit");
  });

  it("periodo: YYYYMM with a real month", () => {
    expect(Periodo.parse("202401")).toBe("202401");
    for (const bad of ["202413", "202400", "2024-01", "24011", "2024011"]) expect(Periodo.safeParse(bad).success).toBe(false);
  });
});
