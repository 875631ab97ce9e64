import { describe, expect, it } from "vitest";
import { formFor, readForms } from "./forms.ts";

const page = `<form name="form1" method="POST" action="/cvc_cgi/dte/of_confirma_folio" onsubmit="return validapag(1)">
 <input name="RUT_EMP" readonly value="76000000" type="Text"> - <input name="DV_EMP" readonly value="0" type="Text">
 <input name="FOLIO_INICIAL" type="hidden" value="0">
 <select name="COD_DOCTO"> <option value="-1">NINGUNO</option>
   <option value="33" selected>FACTURA ELECTRONICA(COD. 33)</option> <option value="61">NOTA CREDITO</option> </select>
 <INPUT NAME='FACTOR' TYPE=HIDDEN VALUE=1.00>
 <input name="NOMUSU" type="hidden" value="JUANA P&Eacute;REZ &amp; CIA">
 <input name="CANT_DOCTOS" type="text" size="8" maxlength="8">
 <input name="ACEPTAR" type="SUBMIT" value="Solicitar Numeración">
</form><form action="/other"><input name="X" value="1"></form>`;

describe("SII forms", () => {
  it("reads every field a browser would post, in order, without the buttons", () => {
    const [first, second] = readForms(page);
    expect(first?.action).toBe("/cvc_cgi/dte/of_confirma_folio");
    expect(first?.fields).toEqual([
      ["RUT_EMP", "76000000"],
      ["DV_EMP", "0"],
      ["FOLIO_INICIAL", "0"],
      ["COD_DOCTO", "33"],
      ["FACTOR", "1.00"],
      ["NOMUSU", "JUANA P&Eacute;REZ & CIA"],
      ["CANT_DOCTOS", ""],
    ]);
    expect(second).toEqual({ action: "/other", fields: [["X", "1"]] });
  });

  it("fills a form by its action", () => {
    const fields = formFor(page, "of_confirma_folio", { CANT_DOCTOS: "10", ACEPTAR: "Solicitar Numeración" });
    expect(fields?.find(([n]) => n === "CANT_DOCTOS")).toEqual(["CANT_DOCTOS", "10"]);
    expect(fields?.at(-1)).toEqual(["ACEPTAR", "Solicitar Numeración"]);
    expect(formFor(page, "of_genera_folio")).toBeNull();
  });
});
