import { describe, expect, it } from "vitest";
import { bytesToBase64 } from "../lib/encoding.ts";
import { REDACT_MAX_CHARS, redactedExcerpt, redactSiiAnswer } from "./redact.ts";

const CLAVE = "Cl4ve Canary&2026";
const PASSPHRASE = "pass-Canary-91";
const OWN = "76192083-9";

function redact(text: string): string {
  return redactSiiAnswer(text, { ownRuts: [OWN], secrets: [CLAVE, PASSPHRASE] });
}

describe("redactSiiAnswer: the user's secrets", () => {
  it("hides a clave in plain, URL-encoded, form-encoded and HTML-escaped forms", () => {
    const text = [
      `Clave recibida: ${CLAVE}.`,
      `<a href="/x?ref=${encodeURIComponent(CLAVE)}">volver</a>`,
      `body=rutcntr%3D1&c=${CLAVE.replace(/ /g, "+").replace("&", "%26")}`,
      `<p>${CLAVE.replace("&", "&amp;")}</p>`,
    ].join("\n");
    const out = redact(text);
    expect(out).not.toContain("Canary");
    expect(out).toContain("volver");
  });

  it("hides a clave inside base64, at any alignment (alone, in Basic auth, in a longer blob)", () => {
    for (const prefix of ["", "7", "76192083-9:", "ab"]) {
      const encoded = Buffer.from(`${prefix}${CLAVE}`, "utf8").toString("base64");
      const out = redact(`Authorization: Basic ${encoded} fin`);
      expect(out).toContain("fin");
      // Whatever remains cannot decode back to the clave.
      for (const word of out.split(/\s+/)) expect(Buffer.from(word, "base64").toString("latin1")).not.toContain("Canary");
    }
  });

  it("hides secret-named fields the caller did not list: form, cookies, JSON, XML, hidden inputs", () => {
    const text = [
      "Set-Cookie: TOKEN=XYZTOKEN123; CSESSIONID=XYZSESSION456; NETSCAPE_LIVEWIRE.clave=XYZLIVE789",
      "https://palena.sii.cl/cgi_dte/x.cgi;jsessionid=XYZJSESSION1?token=XYZQUERYTOKEN",
      '{"clave": "XYZJSONCLAVE", "conversationId": "c1", "data": {"token":"XYZJSONTOKEN"}}',
      "<getToken><TOKEN>XYZXMLTOKEN</TOKEN><ESTADO>00</ESTADO></getToken>",
      '<input type="hidden" name="clave" value="XYZINPUTCLAVE"><input name="rut" value="76192083">',
    ].join("\n");
    const out = redact(text);
    expect(out).not.toMatch(/XYZ/);
    expect(out).toContain("<ESTADO>00</ESTADO>");
    expect(out).toContain('name="rut" value="76192083"');
  });

  it("hides the token inside a SOAP answer's escaped XML (getToken)", () => {
    const soap =
      "<ns1:getTokenReturn>&lt;SII:RESPUESTA&gt;&lt;SII:RESP_BODY&gt;&lt;TOKEN&gt;XYZSOAPTOKEN9&lt;/TOKEN&gt;&lt;/SII:RESP_BODY&gt;" +
      "&lt;SII:RESP_HDR&gt;&lt;ESTADO&gt;00&lt;/ESTADO&gt;&lt;/SII:RESP_HDR&gt;&lt;/SII:RESPUESTA&gt;</ns1:getTokenReturn>";
    const out = redact(soap);
    expect(out).not.toContain("XYZSOAPTOKEN9");
    expect(out).toContain("&lt;ESTADO&gt;00&lt;/ESTADO&gt;");
  });

  it("hides PEM blocks and long base64 runs (keys, certificates, PFX)", () => {
    const key = bytesToBase64(new Uint8Array(300).map((_, i) => (i * 37 + 11) % 256));
    // Any PEM label is hidden; a certificate's stands for the key blocks too.
    const text = `-----BEGIN CERTIFICATE-----\n${key.slice(0, 64)}\n${key.slice(64, 128)}\n-----END CERTIFICATE-----\npfx=${key}\nok`;
    const out = redact(text);
    expect(out).not.toContain(key.slice(10, 40));
    expect(out).not.toContain(key.slice(70, 100));
    expect(out).toContain("[PEM]");
    expect(out).toContain("ok");
  });

  it("keeps URL paths that merely look long", () => {
    const path = "https://www4.sii.cl/consdcvinternetui/services/data/facadeService/getResumen";
    expect(redact(path)).toBe(path);
  });
});

describe("redactSiiAnswer: third parties", () => {
  it("hides third parties' RUT check digits and keeps the user's own RUT", () => {
    const out = redact("Emisor 76.192.083-9 / 76192083-9; receptor 12345678-K y 9.876.543-2; folio 123-4x");
    expect(out).toContain("76.192.083-9");
    expect(out).toContain("76192083-9");
    expect(out).toContain("12345678-?");
    expect(out).toContain("9.876.543-?");
    expect(out).not.toMatch(/12345678-K|9\.876\.543-2/);
  });

  it("hides names and amounts in XML, JSON, CSV and HTML tables, keeping the structure", () => {
    const xml =
      "<Receptor><RUTRecep>12345678-K</RUTRecep><RznSocRecep>Ferreteria Los Pinos Ltda</RznSocRecep></Receptor><MntTotal>119000</MntTotal>";
    const json = '{"rutEmisor": 12345678, "dvEmisor": "K", "razonSocial": "Juana Perez Soto", "montoTotal": 5000, "estado": "REGISTRO"}';
    const csv = "Nro;Tipo Doc;RUT Proveedor;Razon Social;Folio;Monto Total\n1;33;12345678-K;COMERCIAL EL SOL SPA;101;119000";
    const html = "<table><tr><td>PEDRO MUNOZ ROJAS</td><td>FACTURA ELECTRONICA</td><td>$ 1.234.567</td></tr></table>";
    const out = redact([xml, json, csv, html].join("\n"));
    for (const leak of ["Ferreteria", "119000", "Juana", "5000", "COMERCIAL EL SOL", "PEDRO", "1.234.567", '"K"']) {
      expect(out, leak).not.toContain(leak);
    }
    expect(out).toContain("<RznSocRecep>[nombre]</RznSocRecep>");
    expect(out).toContain("<MntTotal>######</MntTotal>");
    expect(out).toContain('"montoTotal": ####');
    expect(out).toContain('"estado": "REGISTRO"');
    expect(out).toContain("1;33;12345678-?;[nombre];101;######");
    expect(out).toContain("<td>FACTURA ELECTRONICA</td>");
    expect(out).toContain("$ #.###.###");
  });

  it("hides e-mail addresses", () => {
    expect(redact("Contacto: juana.perez@example.cl.")).not.toContain("juana");
  });
});

describe("redactSiiAnswer: bounds", () => {
  it("keeps at most the cap, and drops the tail where a cut secret could hide", () => {
    const text = `${"a ".repeat(REDACT_MAX_CHARS)}${CLAVE}`;
    const out = redactSiiAnswer(text, { secrets: [CLAVE] });
    expect(out.length).toBeLessThanOrEqual(REDACT_MAX_CHARS + 20);
    expect(out.endsWith("[… cut]")).toBe(true);
  });

  it("is linear on hostile input (long runs that almost match every pattern)", () => {
    const hostile = [
      "a".repeat(40_000),
      "<input ".repeat(3_000),
      '"k":"'.repeat(3_000),
      "1".repeat(30_000),
      "-----BEGIN X-----".repeat(2_000),
      "x=".repeat(20_000),
    ].join("");
    const started = performance.now();
    redactSiiAnswer(hostile.repeat(4), { secrets: [CLAVE], ownRuts: [OWN], maxChars: 1024 * 1024 });
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe("redactedExcerpt", () => {
  it("is one short line, redacted before it is cut", () => {
    const page = `<html>\n<body>\n<p>${"x".repeat(495)} ${CLAVE}</p></body></html>`;
    const excerpt = redactedExcerpt(page, { secrets: [CLAVE] });
    expect(excerpt.length).toBeLessThanOrEqual(500);
    expect(excerpt).not.toContain("\n");
    expect(excerpt).not.toContain("Cl4ve");
    expect(excerpt).not.toContain("Cl4");
  });
});
