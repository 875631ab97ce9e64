// The certification pages read by their labels: the progress table with its columns in another
// order or renamed gives the same sets, and a page that does not fit (no header, a state the SII is
// not known to use, a set twice, another company, a resolution that is not a number) is
// SII_FORMAT_CHANGED naming the check, never a 200 with other values.
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/lib/api-error.ts";
import { readCertificationData, readProgress } from "../../src/sii/certificacion-read.ts";
import { certificationFixture as fixture } from "../fixtures/sii/certificacion/read.ts";

const COMPANY = "76192083-9";

/** The check a reader refused with, or "read" when it answered. */
function refusal(read: () => unknown): { code: string; service: unknown; check: unknown } | "read" {
  try {
    read();
    return "read";
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const details = err.init.details ?? {};
    return { code: err.code, service: details.service, check: details.check };
  }
}

/** pe_avance2 with its five columns reordered by `order` (indices into the original cells). */
function reordered(order: number[]): string {
  return fixture("pe_avance2.html").replace(/<TR>([\s\S]*?)<\/TR>/g, (row, inner: string) => {
    const cells = inner.match(/<TD>[\s\S]*?<\/TD>(?=<TD>|$)/g);
    if (cells?.length !== 5) return row;
    return `<TR>${order.map((i) => cells[i]).join("")}</TR>`;
  });
}

const progress = readProgress(fixture("pe_avance2.html"), COMPANY);

describe("certification progress by its labels", () => {
  it("reads the same sets with the columns in another order and the headers renamed", () => {
    expect(progress.map((p) => p.estado)).toEqual(["REVISADO CONFORME", "ENVIO CON ERRORES O REPAROS", "SIN DECLARAR"]);
    const moved = reordered([0, 4, 3, 2, 1]);
    expect(readProgress(moved, COMPANY).slice(0, 2)).toEqual(progress.slice(0, 2));
    const renamed = fixture("pe_avance2.html")
      .replace("N&uacute;mero de Atenci&oacute;n", "NRO. ATENCION")
      .replace("N&uacute;mero de Env&iacute;o", "Track ID")
      .replace("<B>Estado</B>", "<B>ESTADO</B>");
    expect(readProgress(renamed, COMPANY)).toEqual(progress);
  });

  it("refuses a page without its header, a state the SII is not known to use, a set twice, another company", () => {
    const page = fixture("pe_avance2.html");
    const changed = (check: RegExp) => ({
      code: "SII_FORMAT_CHANGED",
      service: "certification_progress",
      check: expect.stringMatching(check),
    });
    expect(refusal(() => readProgress(page.replace("<B>Estado</B>", "<B>Situaci&oacute;n</B>"), COMPANY))).toEqual(
      changed(/no header row/),
    );
    expect(refusal(() => readProgress(page.replace("<b>REVISADO CONFORME</b>", "<b>APROBADO PARCIAL</b>"), COMPANY))).toEqual(
      changed(/SET BASICO's state "APROBADO PARCIAL"/),
    );
    expect(refusal(() => readProgress(page.replace("SET GUIA DE DESPACHO", "SET BASICO"), COMPANY))).toEqual(changed(/listed twice/));
    expect(refusal(() => readProgress(page.replace(">4943173<", ">pendiente<"), COMPANY))).toEqual(changed(/attention number/));
    expect(refusal(() => readProgress(page, "22222222-2"))).toEqual(changed(/about 76192083-9, not 22222222-2/));
    // A hidden state code the gateway does not know is refused too, not passed on as a state.
    expect(refusal(() => readProgress(page.replace('VALUE="S01"', 'VALUE="S77"'), COMPANY))).toEqual(changed(/"S77"/));
  });
});

describe("certification data by its labels", () => {
  const page = fixture("ad_empresa2.html");
  const changed = (check: RegExp) => ({ code: "SII_FORMAT_CHANGED", service: "certification_data", check: expect.stringMatching(check) });

  it("reads the rows in another order and the labels spelled otherwise", () => {
    const rows = page.match(/^<TR>.*$/gm) ?? [];
    const shuffled = page.replace(rows.join("\n"), [...rows].reverse().join("\n"));
    expect(readCertificationData(shuffled, COMPANY)).toEqual(readCertificationData(page, COMPANY));
    const spelled = page.replace("Raz&oacute;n Social", "RAZON SOCIAL:").replace("Mail Contacto", "Correo de Contacto");
    expect(readCertificationData(spelled, COMPANY)).toMatchObject({
      razon_social: "COMERCIAL PEÑALOLEN & CIA LTDA",
      emails: { contacto_sii: "certificacion@empresa.example" },
    });
  });

  it("refuses a resolution that is not a number, a date that is not one, a number without its date, another company", () => {
    expect(refusal(() => readCertificationData(page.replace("&nbsp;0</FONT>", "&nbsp;EN TRAMITE</FONT>"), COMPANY))).toEqual(
      changed(/resolution number "EN TRAMITE"/),
    );
    expect(refusal(() => readCertificationData(page.replace("03-11-2026", "31-02-2026"), COMPANY))).toEqual(changed(/"31-02-2026"/));
    const authorizedWithoutDate = page.replace("&nbsp;0</FONT>", "&nbsp;80</FONT>").replace("&nbsp;03-11-2026", "&nbsp;");
    expect(refusal(() => readCertificationData(authorizedWithoutDate, COMPANY))).toEqual(changed(/resolution 80 without its date/));
    expect(refusal(() => readCertificationData(page, "11111111-1"))).toEqual(changed(/about 76192083-9, not 11111111-1/));
    expect(refusal(() => readCertificationData(page.replace("76192083-9", "76192083-1"), COMPANY))).toEqual(changed(/not a RUT/));
  });
});
