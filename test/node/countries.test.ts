// A printout names the country of an Aduana code (Nacionalidad, CodPaisRecep, CodPaisDestin)
// instead of printing the bare number; an unknown code still prints, marked as what it is.
import { describe, expect, it } from "vitest";
import { countryLabel, countryName } from "../../src/dte/render/countries.ts";
import type { PrintedDocument, Receiver } from "../../src/dte/render/model.ts";
import { receiverFields, transferFields } from "../../src/dte/render/sections.ts";

describe("Aduana country codes", () => {
  it.each([
    ["225", "Estados Unidos"],
    ["224", "Argentina"],
    ["517", "España"],
    ["336", "China"],
    ["510", "Reino Unido"],
    ["997", "Chile"],
    ["0225", "Estados Unidos"],
  ])("%s is %s", (code, name) => {
    expect(countryName(code)).toBe(name);
  });

  it("an unknown code prints as the code, saying what it is", () => {
    expect(countryName("999")).toBeNull();
    expect(countryLabel("999")).toBe("999 (código de país, Aduana)");
    expect(countryLabel("225")).toBe("Estados Unidos (225)");
  });

  it("the receiver's nationality and an export's countries print by name", () => {
    const receptor = { nombre: "Receptora", rut: "55555555-5", extranjero: { num_id: "P-1", nacionalidad: "225" } } as Receiver;
    expect(receiverFields(receptor)).toContainEqual(["Nacionalidad", "Estados Unidos (225)"]);
    const transporte = { patente: "", rut_transportista: "", rut_chofer: "", nombre_chofer: "", direccion: "", comuna: "", ciudad: "" };
    const doc = { traslado: null, transporte: { ...transporte, pais_receptor: "225", pais_destino: "224" } } as unknown as PrintedDocument;
    expect(transferFields(doc)).toEqual([
      ["País receptor", "Estados Unidos (225)"],
      ["País de destino", "Argentina (224)"],
    ]);
  });
});
