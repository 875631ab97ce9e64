import { describe, expect, it } from "vitest";
import { decodeLatin1, encodeLatin1, formDecodeLatin1, formEncodeLatin1, responseText } from "./latin1.ts";

describe("latin1", () => {
  it("round-trips every byte, including 0x80-0x9F which windows-1252 would change", () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(encodeLatin1(decodeLatin1(all))).toEqual(all);
    expect(decodeLatin1(Uint8Array.of(0x80)).charCodeAt(0)).toBe(0x80);
  });

  it("replaces characters latin1 cannot hold", () => {
    expect([...encodeLatin1("ñ€")]).toEqual([0xf1, 0x3f]);
  });

  it("percent-encodes forms as latin1 bytes, and back", () => {
    const body = formEncodeLatin1({ razon: "Compañía & Cía", email: "josé@ejemplo.cl" });
    expect(body).toBe("razon=Compa%F1%EDa+%26+C%EDa&email=jos%E9%40ejemplo.cl");
    expect(Object.fromEntries(formDecodeLatin1(body))).toEqual({ razon: "Compañía & Cía", email: "josé@ejemplo.cl" });
  });

  it("reads a body as latin1 unless it says utf-8", async () => {
    expect(await responseText(new Response(Uint8Array.of(0xf1), { headers: { "content-type": "text/html" } }))).toBe("ñ");
    expect(await responseText(new Response("ñ", { headers: { "content-type": "text/html; charset=UTF-8" } }))).toBe("ñ");
    expect(await responseText(new Response('"ñ"', { headers: { "content-type": "application/json" } }))).toBe('"ñ"');
  });
});

describe("bodies whose charset is declared wrong", () => {
  const body = (bytes: Uint8Array, type: string) => ({
    headers: new Headers({ "content-type": type }),
    arrayBuffer: async () => bytes.slice().buffer,
  });

  it("reads latin1 bytes declared as UTF-8 as latin1, and UTF-8 bytes declared as latin1 as UTF-8", async () => {
    expect(await responseText(body(encodeLatin1("Compañía"), "text/html; charset=utf-8"))).toBe("Compañía");
    expect(await responseText(body(new TextEncoder().encode("Compañía"), "text/html; charset=ISO-8859-1"))).toBe("Compañía");
    expect(await responseText(body(encodeLatin1("Compañía"), "text/html; charset=ISO-8859-1"))).toBe("Compañía");
    expect(await responseText(body(encodeLatin1("plain"), "text/html"))).toBe("plain");
  });
});
