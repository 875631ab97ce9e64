// Reading an appraisal workbook's rows by their header texts, wherever the header is and in
// whatever order the columns come, with numbers written as numbers or as text.
import { describe, expect, it } from "vitest";
import { ApiError } from "../lib/api-error.ts";
import { type WriteCell, writeXlsx } from "../lib/xlsx.ts";
import { appraisalRows, openAppraisalSheet } from "./vehiculos.ts";

async function rowsOf(rows: WriteCell[][]) {
  const read = [];
  for await (const row of appraisalRows(await writeXlsx([{ name: "Hoja1", rows: () => rows }]))) read.push(row);
  return read;
}

describe("appraisal workbook rows", () => {
  it("finds the header below the title block and maps columns by name, in any order", async () => {
    const rows = await rowsOf([
      ["TASACIÓN FISCAL DE VEHÍCULOS PESADOS AÑO 2026"],
      ["Tasación en pesos"],
      [],
      ["Marca", "Código SII", "Año", "Tipo", "Modelo", "Versión", "Columna nueva", "Carga (kg)", "Tasación 2026", "Observación"],
      ["VOLVO", "VV1380001", 2024, "BUS", "B8R", "B8R 4X2", "x", { inline: "12.000" }, "$ 180.500.000", null],
      ["SCANIA", "SC1750002", "2019", "TRACTOCAMION", "R 450", null, null, 24000, 95_000_000, { inline: "  MODELO   DISCONTINUADO " }],
      [null, null, null, null, "Fuente: SII"],
    ]);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toEqual({
      codigo: "VV1380001",
      anio: 2024,
      tipo: "BUS",
      marca: "VOLVO",
      modelo: "B8R",
      version: "B8R 4X2",
      puertas: null,
      cilindrada: null,
      potencia: null,
      combustible: null,
      transmision: null,
      marchas: null,
      traccion: null,
      pais: null,
      equipamiento: null,
      carga: 12000,
      pasajeros: null,
      tasacion: 180_500_000,
      permiso: null,
      observacion: null,
    });
    expect(rows[1]).toMatchObject({ anio: 2019, version: null, carga: 24000, tasacion: 95_000_000, observacion: "MODELO DISCONTINUADO" });
  });

  it("refuses a sheet without the header it needs", async () => {
    await expect(
      rowsOf([
        ["Código SII", "Marca"],
        ["X1", "Y"],
      ]),
    ).rejects.toThrow(/no header row/);
  });

  const table: WriteCell[][] = [
    ["Título"],
    ["Código SII", "Año", "Tipo", "Marca", "Modelo", "Tasación 2026"],
    ["A1", 2024, "BUS", "VOLVO", "B8R", 1000],
    ["A2", 2024, "BUS", "VOLVO", "B9R", 2000],
  ];

  it("counts the sheet's rows before reading them: from its dimension, or counted when it has none", async () => {
    const declared = await openAppraisalSheet(await writeXlsx([{ name: "Hoja1", rows: () => table }]));
    const bare = await openAppraisalSheet(await writeXlsx([{ name: "Hoja1", rows: () => table }], { dimension: false }));
    expect([declared.rows, bare.rows]).toEqual([4, 4]);
    const read = [];
    for await (const batch of bare.vehicles()) read.push(...batch.map((values) => values[0]));
    expect(read).toEqual(["A1", "A2"]);
  });

  it("refuses a sheet with more rows than its dimension declares (the rows paid for): SII_FORMAT_CHANGED", async () => {
    const bytes = await writeXlsx([{ name: "Hoja1", rows: () => table }], { deflate: false });
    // The stored sheet's dimension made to say 3 rows where it has 4 (same length: the archive stays whole).
    const text = new TextDecoder("latin1").decode(bytes);
    const at = text.indexOf('<dimension ref="A1:F4"/>');
    expect(at).toBeGreaterThan(0);
    const lying = bytes.slice();
    lying[at + '<dimension ref="A1:F'.length] = "3".charCodeAt(0);
    const sheet = await openAppraisalSheet(lying);
    expect(sheet.rows).toBe(3);
    const read = async () => {
      for await (const _ of sheet.vehicles());
    };
    const error = await read().then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect([(error as ApiError).status, (error as ApiError).code]).toEqual([502, "SII_FORMAT_CHANGED"]);
  });
});
