import { describe, expect, it } from "vitest";
import { certificationFixture } from "../../test/fixtures/sii/certificacion/read.ts";
import { formFor, labelledValues, readForms } from "./forms.ts";

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
  it("reads every field a browser would post, in order, without the buttons, entities decoded", () => {
    const [first, second] = readForms(page);
    expect(first?.action).toBe("/cvc_cgi/dte/of_confirma_folio");
    expect(first?.fields).toEqual([
      ["RUT_EMP", "76000000"],
      ["DV_EMP", "0"],
      ["FOLIO_INICIAL", "0"],
      ["COD_DOCTO", "33"],
      ["FACTOR", "1.00"],
      ["NOMUSU", "JUANA PÉREZ & CIA"],
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

  it("reads a hand-written HTML 4.01 form as a browser does", () => {
    // Never closed, `>` inside an attribute, a form left in a comment, a disabled field, a
    // select with nothing selected and options without a value, a textarea with entities.
    const legacy = `<!-- <FORM ACTION="/old"><INPUT NAME=OLD VALUE=1></FORM> -->
      <FORM NAME=form1 METHOD=POST ACTION="/cvc_cgi/dte/pe_generar2" onSubmit="return n > 0">
      <TABLE><TR><TD><INPUT TYPE=HIDDEN NAME=RAZON VALUE="PE&Ntilde;ALOL&Eacute;N &amp; CIA">
      <TR><TD><INPUT TYPE=CHECKBOX NAME=SET03 VALUE=S CHECKED> SET GUIA<TD><INPUT TYPE=CHECKBOX NAME=SET06 VALUE=S>
      <TR><TD><INPUT TYPE=TEXT NAME=VIEJO VALUE=X DISABLED><TD><SELECT NAME=MES><OPTION>ENERO<OPTION>FEBRERO</SELECT>
      </TABLE><TEXTAREA NAME=OBS>Cami&oacute;n &lt;3&gt;</TEXTAREA><INPUT TYPE=CHECKBOX NAME=SINVALOR CHECKED>`;
    expect(readForms(legacy)).toEqual([
      {
        action: "/cvc_cgi/dte/pe_generar2",
        fields: [
          ["RAZON", "PEÑALOLÉN & CIA"],
          ["SET03", "S"],
          ["MES", "ENERO"],
          ["OBS", "Camión <3>"],
          ["SINVALOR", "on"],
        ],
      },
    ]);
  });

  it("reads the SII's application form: hidden values without quotes, empty text fields, no unchecked box", () => {
    const fields = formFor(certificationFixture("pe_datos_empresa.html"), "pe_confirma");
    expect(fields).toEqual([
      ["RUT_EMP", "76192083"],
      ["DV_EMP", "9"],
      ["EXISTE_PROD", "N"],
      ["EXISTE_CERT", "N"],
      ["RUT_USU", ""],
      ["DV_USU", ""],
      ["MAIL_SUP", ""],
      ["MAIL_SII", ""],
      ["MAIL_DTE", ""],
      ["URL", ""],
      ["NOM_SW", ""],
    ]);
  });

  it("reads label and value pairs from rows the page never closes", () => {
    const pairs = labelledValues(certificationFixture("ad_empresa2.html"));
    expect(pairs).toEqual([
      ["Rut", "76192083-9"],
      ["Razón Social", "COMERCIAL PEÑALOLEN & CIA LTDA"],
      ["Resolución", "0"],
      ["Fecha Resolución", "03-11-2026"],
      ["Fecha Autorización", ""],
      ["Nombre del Software (*)", "Mi ERP"],
      ["Mail Contacto", "certificacion@empresa.example"],
    ]);
  });
});
