import { describe, expect, it } from "vitest";
import { parseTestSets } from "./certificacion-set-pruebas.ts";

// A set in the SII's layout (tab-separated columns, a case per heading), written for this test.
const TEXT = [
  "SET FACTURA EXENTA - NUMERO DE ATENCIÓN: 5000001",
  "CASO 5000001-1",
  "==============",
  "DOCUMENTO\tFACTURA NO AFECTA O EXENTA ELECTRONICA",
  "ITEM\t\t\tCANTIDAD\tUNIDAD MEDIDA\tVALOR UNITARIO",
  "HORAS DE SOPORTE\t      4\t\tHora\t\t   15.500",
  "CASO 5000001-2",
  "==============",
  "DOCUMENTO\t\tNOTA DE CREDITO ELECTRONICA",
  "REFERENCIA\t\tFACTURA  NO AFECTA O EXENTA ELECTRONICA CORRESPONDIENTE A CASO 5000001-1",
  "RAZON REFERENCIA\tMODIFICA MONTO",
  "ITEM\t\t\tVALOR UNITARIO",
  "HORAS DE SOPORTE \t    1.000",
  "--------------------------------------------------------------------------------",
  "SET LIBRO DE COMPRAS - NUMERO DE ATENCION: 5000002",
  "CONSTRUYA EL LIBRO.",
].join("\n");

describe("test set text", () => {
  it("reads units, thousands separators, references across spacing and accents, and sets without cases", () => {
    const [exenta, compras] = parseTestSets(TEXT);
    expect(exenta).toMatchObject({ nombre: "SET FACTURA EXENTA", numero_atencion: "5000001" });
    expect(exenta?.casos[0]).toMatchObject({
      caso: "5000001-1",
      tipo: 34,
      items: [{ nombre: "HORAS DE SOPORTE", cantidad: 4, unidad: "Hora", precio_unitario: 15500, exento: false }],
    });
    expect(exenta?.casos[1]).toMatchObject({
      tipo: 61,
      referencia: { documento: "FACTURA NO AFECTA O EXENTA ELECTRONICA", tipo: 34, caso: "5000001-1" },
      razon_referencia: "MODIFICA MONTO",
      items: [{ nombre: "HORAS DE SOPORTE", cantidad: null, precio_unitario: 1000 }],
    });
    expect(compras).toMatchObject({ nombre: "SET LIBRO DE COMPRAS", casos: [], texto: "CONSTRUYA EL LIBRO." });
  });

  // devlas-cl/dte-sii cert/SetParser.js reads the attention number past a broken accent, a colon
  // or none, and the head with leading blanks; each spelling below must give the same sets.
  it.each([
    ["a replacement character", "SET BASICO - NUMERO DE ATENCI\uFFFDN: 5000003"],
    ["a double decoding", "SET BASICO - NUMERO DE ATENCIï¿½N: 5000003"],
    ["UTF-8 read as Latin-1", "SET BASICO - NÃ\u009aMERO DE ATENCIÃ\u0093N: 5000003"],
    ["no colon, a colon before the label, leading blanks", "  SET BASICO : NUMERO DE ATENCION 5000003"],
  ])("finds a set whose attention number comes with %s", (_, head) => {
    const text = [
      head,
      "CASO 5000003-1",
      "==============",
      "DOCUMENTO\tFACTURA ELECTRONICA",
      "ITEM\tCANTIDAD\tPRECIO UNITARIO",
      "Tornillo\t10\t350",
    ].join("\n");
    const [set] = parseTestSets(text);
    expect(set).toMatchObject({ nombre: "SET BASICO", numero_atencion: "5000003" });
    expect(set?.casos).toMatchObject([
      { caso: "5000003-1", tipo: 33, items: [{ nombre: "Tornillo", cantidad: 10, precio_unitario: 350 }] },
    ]);
  });
});
