// Pages that do not end in </html> (finding 6 of the second fidelity audit, inferred): whole when
// nothing a reader reads was left open, cut short when the page stops inside a table, a form, a
// tag, a comment or a script.
import { describe, expect, it } from "vitest";
import { certificationFixture as fixture } from "../../test/fixtures/sii/certificacion/read.ts";
import { ApiError } from "../lib/api-error.ts";
import type { SiiTransport } from "../ports/transport.ts";
import { browse, cutShort } from "./browse.ts";
import { readCertificationData } from "./certificacion-read.ts";
import { CookieJar } from "./cookies.ts";
import type { SiiContext } from "./http.ts";

const page = fixture("ad_empresa2.html");
const unclosed = page.replace(/<\/BODY>\s*<\/HTML>\s*$/, "");

function serving(body: string): SiiContext {
  const transport: SiiTransport = {
    mode: "sandbox",
    fetch: async () => new Response(body, { headers: { "content-type": "text/html; charset=ISO-8859-1" } }),
  };
  return { transport, timeoutMs: 2_000 };
}

const read = (body: string) =>
  browse(serving(body), new CookieJar(), "https://maullin.sii.cl/cvc_cgi/dte/ad_empresa2", { service: "certification_data", read: true });

describe("pages that do not end in </html>", () => {
  it("reads a whole page without </BODY></HTML>, or with bytes after them", async () => {
    expect(unclosed).not.toMatch(/<\/HTML>/i);
    const answer = await read(unclosed);
    expect(readCertificationData(answer.text, "76192083-9")).toMatchObject({ rut: "76192083-9", resolucion: { numero: 0 } });
    expect((await read(`${page}\n<!-- 0.013s -->\n\u0000`)).status).toBe(200);
  });

  it("refuses a page cut inside its table, a row's tag, a comment or a script", async () => {
    const cuts = [
      unclosed.slice(0, unclosed.indexOf("Resoluci&oacute;n</FONT>")), // in the middle of the rows read
      unclosed.slice(0, unclosed.indexOf("<TD><FONT FACE=Arial SIZE=2>&nbsp;0") + 8), // inside a tag
      `${unclosed}<!-- contador`,
      `${unclosed}<SCRIPT>var x = "<TABLE>";`,
    ];
    for (const cut of cuts) {
      expect(cutShort(cut)).toBe(true);
      const err = await read(cut).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe("SII_GATEWAY_ERROR");
      expect((err as ApiError).message).toMatch(/cut short/);
    }
    // Markup inside a finished script or comment does not count as an open table.
    expect(cutShort(`${unclosed}<SCRIPT>var x = "<TABLE>";</SCRIPT><!-- <FORM> -->`)).toBe(false);
  });
});
