import { describe, expect, it } from "vitest";
import { CookieJar } from "./cookies.ts";

const setCookies = (...lines: string[]) => {
  const headers = new Headers();
  for (const line of lines) headers.append("set-cookie", line);
  return headers;
};

describe("CookieJar", () => {
  it("shares .sii.cl cookies across SII hosts and keeps host-only cookies at home", () => {
    const jar = new CookieJar();
    jar.store("https://zeusr.sii.cl/cgi_AUT2000/CAutInicio.cgi", setCookies("TOKEN=ABC; Domain=.sii.cl; Path=/", "WAF=1; Path=/"));
    expect(jar.header("https://misiir.sii.cl/cgi_misii/siihome.cgi")).toBe("TOKEN=ABC");
    expect(jar.header("https://zeusr.sii.cl/x")).toBe("TOKEN=ABC; WAF=1");
    expect(jar.header("https://example.cl/")).toBe("");
    expect(jar.get("TOKEN")).toBe("ABC");
  });

  it("refuses cookies for foreign domains, replaces by name, drops expired ones, honours paths", () => {
    const jar = new CookieJar();
    jar.store("https://zeusr.sii.cl/", setCookies("EVIL=1; Domain=.example.cl", "A=1; Domain=sii.cl", "P=1; Path=/cgi_dte"));
    jar.store("https://zeusr.sii.cl/", setCookies("A=2; Domain=sii.cl"));
    expect(jar.header("https://palena.sii.cl/")).toBe("A=2");
    expect(jar.header("https://zeusr.sii.cl/cgi_dte/UPL").split("; ").sort()).toEqual(["A=2", "P=1"]);
    jar.store("https://zeusr.sii.cl/", setCookies("A=gone; Domain=sii.cl; Expires=Thu, 01 Jan 1970 00:00:00 GMT"));
    expect(jar.get("A")).toBeUndefined();
  });

  it("survives a round trip through JSON", () => {
    const jar = new CookieJar();
    jar.store("https://zeusr.sii.cl/", setCookies("TOKEN=T; Domain=.sii.cl; Max-Age=3600"));
    const copy = CookieJar.fromJSON(JSON.parse(JSON.stringify(jar)));
    expect(copy.header("https://www4.sii.cl/")).toBe("TOKEN=T");
  });
});
