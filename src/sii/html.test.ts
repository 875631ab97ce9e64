import { describe, expect, it } from "vitest";
import { decodeHtml, parsePage, rowsOf, tableRows, textOf } from "./html.ts";

describe("tableRows", () => {
  it("reads HTML 4.01 rows without </tr> and </td>, in upper case", () => {
    const html = "<TABLE><TR><TH>Rut<TD>76192083-9<TR><TH>Raz&oacute;n Social<TD>Empresa&nbsp;de  Prueba</TABLE>";
    expect(tableRows(html)).toEqual([
      ["Rut", "76192083-9"],
      ["Razón Social", "Empresa de Prueba"],
    ]);
  });

  it("keeps the text of nested markup and decodes numeric entities", () => {
    expect(tableRows('<table><tr><th width="40"><strong>7</strong></th><td><b>&#36; 941.638,50</b></td></tr></table>')).toEqual([
      ["7", "$ 941.638,50"],
    ]);
  });

  it("lists a nested table's rows on their own", () => {
    const rows = tableRows("<table><tr><td>outer</td><td><table><tr><td>inner</td></tr></table></td></tr></table>");
    expect(rows[1]).toEqual(["inner"]);
    expect(rows).toHaveLength(2);
  });

  it("finds nothing in a page without tables", () => {
    expect(tableRows("<p>Servicio no disponible</p>")).toEqual([]);
  });
});

describe("parsePage", () => {
  it("keeps a fragment's top-level elements as siblings", () => {
    const doc = parsePage("<h2>Enero</h2><table><tr><td>1</td></tr></table><h2>Febrero</h2>");
    expect(Array.from(doc.querySelectorAll("h2")).map(textOf)).toEqual(["Enero", "Febrero"]);
    expect(rowsOf(doc)).toEqual([["1"]]);
  });

  it("reads a whole page with its own <html>", () => {
    const doc = parsePage('<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01//EN"><HTML><BODY><P CLASS=x>Hola</BODY></HTML>');
    expect(textOf(doc.querySelector("p.x"))).toBe("Hola");
  });
});

describe("decodeHtml", () => {
  it("decodes the named entities of latin1 pages and numeric ones", () => {
    expect(decodeHtml("Se&ntilde;or &Aacute;lvarez &amp; C&#237;a")).toBe("Señor Álvarez & Cía");
  });

  it("leaves unknown entities as they are", () => {
    expect(decodeHtml("a &bogus; b")).toBe("a &bogus; b");
  });
});

describe("attributes", () => {
  it("answers upper-case attribute names in lower case, as a browser does", () => {
    const doc = parsePage('<FORM ACTION="/cvc_cgi/dte/ad_empresa2"><INPUT TYPE=HIDDEN NAME=RUT_EMP VALUE="76192083"></FORM>');
    const input = doc.querySelector('input[type="HIDDEN"][name="RUT_EMP"]');
    expect(input?.getAttribute("value")).toBe("76192083");
    expect(doc.querySelector("form")?.getAttribute("action")).toBe("/cvc_cgi/dte/ad_empresa2");
  });
});
