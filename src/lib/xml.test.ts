import { describe, expect, it } from "vitest";
import { elementInner, elementText, escapeXml, stripXmlDeclaration, unescapeXml } from "./xml.ts";

const seedResponse = `<?xml version="1.0" encoding="UTF-8"?>
<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body>
<ns1:getSeedResponse xmlns:ns1="http://DefaultNamespace"><ns1:getSeedReturn xsi:type="xsd:string">&lt;?xml version=&quot;1.0&quot; encoding=&quot;UTF-8&quot;?&gt;&lt;SII:RESPUESTA xmlns:SII=&quot;http://www.sii.cl/XMLSchema&quot;&gt;&lt;SII:RESP_BODY&gt;&lt;SEMILLA&gt;168441616904&lt;/SEMILLA&gt;&lt;/SII:RESP_BODY&gt;&lt;SII:RESP_HDR&gt;&lt;ESTADO&gt;00&lt;/ESTADO&gt;&lt;/SII:RESP_HDR&gt;&lt;/SII:RESPUESTA&gt;</ns1:getSeedReturn></ns1:getSeedResponse>
</soapenv:Body></soapenv:Envelope>`;

describe("xml helpers", () => {
  it("finds the escaped inner document whatever the prefix, then its fields", () => {
    const inner = elementText(seedResponse, "getSeedReturn");
    expect(inner).toContain("<SII:RESPUESTA");
    expect(elementText(inner!, "SEMILLA")).toBe("168441616904");
    expect(elementText(inner!, "ESTADO")).toBe("00");
    expect(elementText(inner!, "GLOSA")).toBeNull();
  });

  it("keeps CDATA content and handles empty elements", () => {
    expect(elementText("<a><![CDATA[<x>&amp;</x>]]></a>", "a")).toBe("<x>&amp;</x>");
    expect(elementText("<r><GLOSA/></r>", "GLOSA")).toBe("");
    expect(elementInner("<r><b>1</b><b>2</b></r>", "b")).toBe("1");
  });

  it("escapes and unescapes, including numeric entities", () => {
    expect(escapeXml(`a<b & "c" 'd'>`)).toBe("a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;");
    expect(unescapeXml("&#241;&#xF1;&amp;lt;")).toBe("ññ&lt;");
    expect(stripXmlDeclaration('<?xml version="1.0"?>\n<a/>')).toBe("<a/>");
  });
});
