// The PDF renderer on every runtime: its content streams are compressed with node:zlib, which
// Workers offers under nodejs_compat (Node has it always); read back with DecompressionStream.
import { describe, expect, it } from "vitest";
import type { PrintedDocument } from "../../src/dte/render/model.ts";
import { pdfDocument } from "../../src/dte/render/pdf.ts";

const party = { rut: "76192083-9", nombre: "Comercial Sandbox SpA", giro: "Comercio", direccion: "Calle Uno 1", comuna: "Ñuñoa" };
const issuer = { ...party, telefonos: [], correo: "", actecos: [], sucursal: "", cdg_sii_sucur: "", vendedor: "" };
const receiver = { ...party, contacto: "", correo: "", ciudad: "", direccion_postal: "", extranjero: null };
const invoice: PrintedDocument = {
  tipo: 33,
  nombre_tipo: "FACTURA ELECTRÓNICA",
  folio: 42,
  fecha: "2026-11-01",
  emisor: issuer,
  receptor: { ...receiver, rut: "22222222-2", nombre: "Pedro Pérez" },
  traslado: null,
  transporte: null,
  lineas: [
    {
      nombre: "Asesoría contable",
      descripcion: "",
      cantidad: 2,
      unidad: "",
      precio: 50_000,
      descuento_pct: null,
      descuento: null,
      recargo_pct: null,
      recargo: null,
      monto: 100_000,
      exento: false,
    },
  ],
  descuentos_globales: [],
  totales: {
    moneda: null,
    neto: 100_000,
    exento: null,
    iva: 19_000,
    tasa_iva: 19,
    iva_propio: null,
    iva_terceros: null,
    impuestos: [],
    iva_no_retenido: null,
    credito_constructoras: null,
    garantia_envases: null,
    comisiones: null,
    total: 119_000,
    no_facturable: null,
    periodo: null,
    saldo_anterior: null,
    a_pagar: null,
  },
  otra_moneda: null,
  comisiones: [],
  referencias: [],
  ted: new TextEncoder().encode('<TED version="1.0"><DD><RE>76192083-9</RE><TD>33</TD><F>42</F></DD></TED>'),
};

async function inflate(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
  return new TextDecoder("latin1").decode(await new Response(stream).arrayBuffer());
}

describe("PDF renderer", () => {
  it("writes each page's drawing as a FlateDecode stream that inflates to its text", async () => {
    const pdf = await pdfDocument([invoice], {
      papel: "carta",
      cedible: true,
      copias: 1,
      resolucion: { numero: 80, fecha: "2014-08-22" },
      oficina_sii: "PROVIDENCIA",
      logo: null,
    });
    const raw = new TextDecoder("latin1").decode(pdf);
    expect(raw.startsWith("%PDF-1.4\n")).toBe(true);
    const streams = [...raw.matchAll(/\/Filter \/FlateDecode \/Length (\d+) >>\nstream\n/g)];
    expect(streams).toHaveLength(2); // the copy and the cedible copy
    const pages = await Promise.all(
      streams.map((m) => {
        const start = (m.index ?? 0) + m[0].length;
        return inflate(pdf.slice(start, start + Number(m[1])));
      }),
    );
    expect(pages[0]).toContain("(Pedro P\xe9rez) Tj");
    expect(pages[0]).toContain("/Ted1 Do");
    expect(pages[1]).toContain("(CEDIBLE) Tj");
  });
});
