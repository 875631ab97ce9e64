import { describe, expect, it } from "vitest";
import { decodeHtml } from "./entities.ts";
import { pageText } from "./http.ts";

describe("SII page text reaches JSON decoded", () => {
  it("decodes the named entities the SII's HTML 4.01 pages write", () => {
    expect(decodeHtml("&iquest;Postulaci&oacute;n? &iexcl;Se&ntilde;or &Aacute;lvarez! N&ordm; 5, 1&ordf;, 20&deg;")).toBe(
      "¿Postulación? ¡Señor Álvarez! Nº 5, 1ª, 20°",
    );
  });

  it("gives the excerpt in an answer (pageText) as characters, not entities", () => {
    const page = `<HTML><BODY><CENTER><FONT>La empresa 76192083-9 no est&aacute; inscrita en el proceso de Postulaci&oacute;n.</FONT>
      <script>var x = "&oacute;";</script><P>Raz&oacute;n&nbsp;Social &amp; C&#237;a &lt;b&gt;</P></CENTER></BODY></HTML>`;
    expect(pageText(page)).toBe("La empresa 76192083-9 no está inscrita en el proceso de Postulación. Razón Social & Cía <b>");
  });
});
