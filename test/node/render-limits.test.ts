// pdf and escpos draw every Detalle line of an uploaded XML, so the upload must fit the same limits
// as a document given as JSON: a document over its line limit, or a request over its total, is a
// 400 naming the limit and the count, never a PDF with lines left out or an unbounded drawing.
import { describe, expect, it } from "vitest";
import { bytesToBase64 } from "../../src/lib/encoding.ts";
import { MAX_BATCH_LINES, MAX_DOCUMENT_LINES } from "../../src/platform/batch-limits.ts";
import { errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const line = (n: number) => `<Detalle><NroLinDet>${n}</NroLinDet><NmbItem>Item ${n}</NmbItem><MontoItem>1</MontoItem></Detalle>`;
const dte = (folio: number, lines: number) =>
  `<DTE version="1.0"><Documento ID="F${folio}T33"><Encabezado><IdDoc><TipoDTE>33</TipoDTE><Folio>${folio}</Folio><FchEmis>2026-11-20</FchEmis></IdDoc>` +
  `<Emisor><RUTEmisor>76192083-9</RUTEmisor><RznSoc>Comercial Sandbox SpA</RznSoc></Emisor><Receptor><RUTRecep>22222222-2</RUTRecep></Receptor>` +
  `<Totales><MntTotal>${lines}</MntTotal></Totales></Encabezado>${Array.from({ length: lines }, (_, i) => line(i + 1)).join("")}</Documento></DTE>`;
const envio = (...docs: string[]) =>
  `<EnvioDTE version="1.0"><SetDTE ID="SetDoc"><Caratula version="1.0"/>${docs.join("")}</SetDTE></EnvioDTE>`;

describe("Detalle limits on uploaded XML", () => {
  for (const path of ["/api/v1/platform/dte/documentos/pdf", "/api/v1/platform/dte/documentos/escpos"]) {
    it(`${path}: a document over ${MAX_DOCUMENT_LINES} lines, or a request over ${MAX_BATCH_LINES}, is refused naming the limit`, async () => {
      const t = probeApp(undefined, { maxBodyBytes: 16 * 1024 * 1024 });
      const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
      const office = path.endsWith("/documentos/pdf") ? { oficina_sii: "PROVIDENCIA" } : {};
      const post = (xml: string) => postJson(t.app, token.secret, path, { xml: bytesToBase64(new TextEncoder().encode(xml)), ...office });
      const tooLong = await post(dte(1, MAX_DOCUMENT_LINES + 1));
      expect(tooLong.status).toBe(400);
      expect((await errorOf(tooLong)).message).toBe(
        `xml document 1 has ${MAX_DOCUMENT_LINES + 1} Detalle lines; a document has at most ${MAX_DOCUMENT_LINES}`,
      );
      // One line more than a request may carry, in documents of the most lines a document may have.
      const documents = Math.ceil((MAX_BATCH_LINES + 1) / MAX_DOCUMENT_LINES);
      const last = MAX_BATCH_LINES + 1 - (documents - 1) * MAX_DOCUMENT_LINES;
      const tooMany = await post(
        envio(...Array.from({ length: documents }, (_, i) => dte(i + 1, i < documents - 1 ? MAX_DOCUMENT_LINES : last))),
      );
      expect(tooMany.status).toBe(400);
      expect((await errorOf(tooMany)).message).toMatch(
        new RegExp(`has ${MAX_BATCH_LINES + 1} Detalle lines in all; at most ${MAX_BATCH_LINES} per request`),
      );
      expect((await post(envio(dte(1, 600), dte(2, 600)))).status).toBe(200);
    });
  }
});
