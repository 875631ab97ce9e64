// A DTE XML to the normalizer's JSON shape (real documents: test/node/real-documents.test.ts).
import { describe, expect, it } from "vitest";
import { encodeLatin1 } from "../../lib/latin1.ts";
import { EnvelopeUnreadable, readEnvelope } from "../verify/envelope.ts";
import { dteDocumentsFromXml } from "./from-xml.ts";
import type { Node } from "./normalize.ts";

const dteXml = (folio: number, ns = ' xmlns="http://www.sii.cl/SiiDte"') => `<DTE${ns} version="1.0"><Documento ID="F${folio}T33">
  <Encabezado><IdDoc><TipoDTE>33</TipoDTE><Folio>${folio}</Folio><FchEmis>2026-11-20</FchEmis></IdDoc>
    <Emisor><RUTEmisor>76192083-9</RUTEmisor><RznSoc>Peñalolén &amp; Cía</RznSoc><Acteco>479100</Acteco><Acteco>620200</Acteco></Emisor>
    <Totales><MntNeto>1000</MntNeto><TasaIVA>19</TasaIVA><IVA>190</IVA><MntTotal>1190</MntTotal></Totales></Encabezado>
  <Detalle><NroLinDet>1</NroLinDet><CdgItem><TpoCodigo>INT1</TpoCodigo><VlrCodigo>011</VlrCodigo></CdgItem><NmbItem><![CDATA[Cable <RJ45>]]></NmbItem><QtyItem>2.0</QtyItem><PrcItem>500</PrcItem><MontoItem>1000</MontoItem></Detalle>
  <Referencia><NroLinRef>1</NroLinRef><TpoDocRef>801</TpoDocRef><FolioRef>0042</FolioRef><FchRef>2026-11-01</FchRef></Referencia>
  <TED version="1.0"><DD><RE>76192083-9</RE></DD><FRMT algoritmo="SHA1withRSA">x</FRMT></TED><TmstFirma>2026-11-20T10:00:00</TmstFirma>
</Documento><Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo/></Signature></DTE>`;

/** The documents of an upload, read as formatos/json reads it. */
const documentsOf = (xml: string) =>
  dteDocumentsFromXml(readEnvelope(xml.includes("ISO-8859-1") ? encodeLatin1(xml) : new Uint8Array(new TextEncoder().encode(xml))));

describe("DTE XML to the JSON shape", () => {
  it("takes Documento's content with SII tag names, lists for repeated elements, numbers where the schema has numbers", () => {
    const { envelope, documents } = documentsOf(`<?xml version="1.0" encoding="ISO-8859-1"?>\n${dteXml(7)}`);
    expect(envelope).toBe("DTE");
    expect(documents).toEqual([
      {
        Encabezado: {
          IdDoc: { TipoDTE: 33, Folio: 7, FchEmis: "2026-11-20" },
          Emisor: { RUTEmisor: "76192083-9", RznSoc: "Peñalolén & Cía", Acteco: [479100, 620200] },
          Totales: { MntNeto: 1000, TasaIVA: 19, IVA: 190, MntTotal: 1190 },
        },
        Detalle: {
          NroLinDet: 1,
          CdgItem: { TpoCodigo: "INT1", VlrCodigo: "011" },
          NmbItem: "Cable <RJ45>",
          QtyItem: 2,
          PrcItem: 500,
          MontoItem: 1000,
        },
        Referencia: { NroLinRef: 1, TpoDocRef: "801", FolioRef: "0042", FchRef: "2026-11-01" },
      },
    ]);
  });

  it("reads every DTE of an EnvioDTE or EnvioBOLETA, prefixed or not", () => {
    const envio = `<EnvioDTE xmlns="http://www.sii.cl/SiiDte" version="1.0"><SetDTE ID="SetDoc"><Caratula version="1.0"/>${dteXml(1, "")}${dteXml(2, "")}</SetDTE></EnvioDTE>`;
    const { envelope, documents } = documentsOf(envio);
    expect(envelope).toBe("EnvioDTE");
    expect(documents.map((d) => ((d.Encabezado as Node).IdDoc as Node).Folio)).toEqual([1, 2]);
    const prefixed = `<s:EnvioBOLETA xmlns:s="http://www.sii.cl/SiiDte"><s:SetDTE><s:DTE><s:Documento><s:Encabezado><s:IdDoc><s:TipoDTE>39</s:TipoDTE></s:IdDoc></s:Encabezado></s:Documento></s:DTE></s:SetDTE></s:EnvioBOLETA>`;
    expect(documentsOf(prefixed)).toEqual({ envelope: "EnvioBOLETA", documents: [{ Encabezado: { IdDoc: { TipoDTE: 39 } } }] });
  });

  it("refuses other roots and a DTE without exactly one Documento; an empty envelope holds no documents", () => {
    expect(() => documentsOf("<Documento/>")).toThrow(EnvelopeUnreadable);
    expect(documentsOf("<EnvioDTE><SetDTE/></EnvioDTE>").documents).toEqual([]);
    expect(() => documentsOf("<DTE><Documento/><Documento/></DTE>")).toThrow(/exactly one Documento/);
    expect(() => documentsOf("<DTE><Documento></DTE>")).toThrow(/not well-formed/);
  });
});
