// The boleta service's envelope status (GET boleta.electronica.envio/{rut}-{dv}-{trackid}) read with the
// same invariants as QueryEstUp's counts: every count of `estadistica[]` present and a whole number, each
// type once, accepted + rejected (+ repaired) = informed, and a processed envelope with its counts. A
// missing or renamed field is a 502 SII_FORMAT_CHANGED, never a 0 that turns rejections into `aceptado`.
// Shapes: docs/sii-services.md §11.2 (the documented answer and a real capture, trackid 30417072).
import { describe, expect, it } from "vitest";
import { boletaUploadStatus } from "../../src/sii/envios-boleta.ts";
import type { SiiContext } from "../../src/sii/http.ts";
import { liveTransport } from "../../src/sii/transport.ts";
import { failure } from "../support/sii.ts";

/** A live-mode context whose boleta service answers every request with `body` as JSON. */
function serving(body: unknown): SiiContext {
  const fetch = async () => new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
  return { transport: liveTransport(fetch as typeof globalThis.fetch), timeoutMs: 5_000 };
}

const status = (body: unknown) => boletaUploadStatus(serving(body), "1", "TOKEN1", "76192083-9", "30417072");

/** The real capture of docs/sii-services.md §11.2: one boleta, rejected. */
const CAPTURE = {
  estado: "EPR",
  estadistica: [{ tipo: 39, informados: 1, aceptados: 0, rechazados: 1, reparos: 0 }],
  detalle_rep_rech: [{ tipo: 39, folio: 1, estado: "RCH", error: [{ seccion: "DTE", codigo: 505, descripcion: "Firma DTE Incorrecta" }] }],
};

const withCounts = (counts: unknown[], estado = "EPR") => ({ ...CAPTURE, estado, estadistica: counts });

describe("boleta envelope status counts", () => {
  it("reads the real capture: one boleta informed, rejected, so the envelope is rechazado", async () => {
    const answer = await status(CAPTURE);
    expect(answer.resultado).toBe("rechazado");
    expect(answer.documentos).toEqual([{ tipo: 39, informados: 1, aceptados: 0, rechazados: 1, reparos: 0 }]);
  });

  it.each([
    ["repaired counted apart from accepted", { tipo: 39, informados: 3, aceptados: 2, rechazados: 0, reparos: 1 }],
    ["repaired counted among accepted", { tipo: 39, informados: 3, aceptados: 3, rechazados: 0, reparos: 1 }],
  ])("reads %s as accepted with objections", async (_, counts) => {
    const answer = await status(withCounts([counts]));
    expect([answer.resultado, answer.documentos]).toEqual(["aceptado_con_reparos", [counts]]);
  });

  it("reads an envelope still in process without counts", async () => {
    expect((await status({ estado: "REC", estadistica: [], detalle_rep_rech: null })).resultado).toBe("procesando");
  });

  it.each([
    ["a count renamed", [{ tipo: 39, informados: 3, aceptados: 2, rechazadas: 1, reparos: 0 }], /rechazados is missing/],
    ["a count missing", [{ tipo: 39, informados: 3, aceptados: 3 }], /rechazados is missing/],
    [
      "a count that is not a whole number",
      [{ tipo: 39, informados: 3, aceptados: "dos", rechazados: 1, reparos: 0 }],
      /aceptados.*not a whole number/,
    ],
    ["a negative count", [{ tipo: 39, informados: 3, aceptados: 4, rechazados: -1, reparos: 0 }], /rechazados.*not a whole number/],
    [
      "counts that do not add up",
      [{ tipo: 39, informados: 3, aceptados: 3, rechazados: 1, reparos: 0 }],
      /3 accepted \+ 1 rejected \+ 0 repaired is not the 3 informed/,
    ],
    [
      "a type counted twice",
      [
        { tipo: 39, informados: 1, aceptados: 1, rechazados: 0, reparos: 0 },
        { tipo: 39, informados: 1, aceptados: 0, rechazados: 1, reparos: 0 },
      ],
      /type 39 is counted twice/,
    ],
    ["a count that is not an object", [39], /estadistica\[0\] is not/],
  ])("refuses %s with SII_FORMAT_CHANGED", async (_, counts, check) => {
    const err = await failure(status(withCounts(counts)));
    expect([err.status, err.code, err.init.details?.service]).toEqual([502, "SII_FORMAT_CHANGED", "boleta_status"]);
    expect(String(err.init.details?.check)).toMatch(check);
  });

  it.each([
    ["renamed", { estado: "EPR", estadisticas: CAPTURE.estadistica }],
    ["empty", { estado: "EPR", estadistica: [] }],
    ["not a list", { estado: "EPR", estadistica: { tipo: 39 } }],
  ])("refuses a processed envelope whose counts are %s", async (_, body) => {
    const err = await failure(status(body));
    expect([err.status, err.code]).toEqual([502, "SII_FORMAT_CHANGED"]);
    expect(String(err.init.details?.check)).toMatch(/estadistica/);
  });
});
