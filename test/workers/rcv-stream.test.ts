// The synchronous RCV detail of a large period streams in workerd too: the Worker entry answers a
// 10 k-document period's type whole (documents and the SII's rows from a second read).
import { describe, expect, it } from "vitest";
import { rcvDocuments } from "../../src/sandbox/rcv.ts";
import { DETAIL_BLOCK_ROWS, rowUnits } from "../../src/services/rcv-charge.ts";
import { ADMIN_HEADERS, fetchWorker } from "./worker.ts";

describe("RCV detail in workerd", () => {
  it("streams a large period's documents and the SII's rows", async () => {
    const created = await fetchWorker("/admin/v1/tokens", {
      method: "POST",
      headers: ADMIN_HEADERS,
      body: JSON.stringify({ name: "rcv", account: "rcv-stream", scopes: ["sii:read"], plan: { daily_units: 100, monthly_units: 100 } }),
    });
    const { data: token } = (await created.json()) as { data: { token: string } };
    const res = await fetchWorker("/api/v1/sii/rcv/ventas/detalle/76192083-9/201902/33", {
      method: "POST",
      headers: { "x-api-token": token.token, "content-type": "application/json" },
      body: JSON.stringify({ auth: { pass: { rut: "76192083-9", clave: "sandbox76" } } }),
    });
    const expected = rcvDocuments("76192083-9", 201902, "VENTA").filter((d) => d.tipo === 33);
    // Charged by the documents its summary counts, before they are read: the weight per started block.
    expect([res.status, res.headers.get("x-quota-units")]).toEqual([200, String(rowUnits(expected.length, DETAIL_BLOCK_ROWS))]);
    const { data } = (await res.json()) as {
      data: { registros: number; documentos: { folio: number }[]; sii: { data: { detNroDoc: number }[] } };
    };
    expect(data.registros).toBe(expected.length);
    expect(data.documentos.map((d) => d.folio)).toEqual(expected.map((d) => d.folio));
    expect(data.sii.data.map((r) => r.detNroDoc)).toEqual(expected.map((d) => d.folio));
  });
});
