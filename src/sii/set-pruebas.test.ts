import { describe, expect, it } from "vitest";
import { parseTestSets } from "./set-pruebas.ts";

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
});
