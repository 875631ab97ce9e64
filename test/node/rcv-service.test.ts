// The RCV service called as a service: a Caller built from the test deps, no HTTP request, no
// Hono context. It returns data (the summary) or the pieces of `data` (the detail), never an
// envelope: that is written by platform/envelope.ts around them.
import { describe, expect, it } from "vitest";
import { rcvDocuments } from "../../src/sandbox/rcv.ts";
import { readDetail, readSummary } from "../../src/services/rcv.ts";
import { testDeps } from "../support/app.ts";
import { type TestCaller, testCaller } from "../support/caller.ts";

const login = { pass: { rut: "76192083-9", clave: "sandbox76" } };
const q = { rut: "76192083-9", periodo: "202405", operacion: "COMPRA" as const, estado: "REGISTRO" };

function caller(): TestCaller {
  const { deps } = testDeps();
  deps.clock = { now: () => new Date("2026-11-22T15:00:00Z") };
  return testCaller(deps);
}

async function text(pieces: AsyncIterable<string>): Promise<string> {
  let all = "";
  for await (const piece of pieces) all += piece;
  return all;
}

describe("the RCV service without HTTP", () => {
  it("answers the period's summary as data and its message", async () => {
    const { data, message } = await readSummary(caller(), q, login);
    const docs = rcvDocuments("76192083-9", 202405, "COMPRA").filter((d) => d.estado === "REGISTRO");
    expect([data.total_documentos, message]).toEqual([docs.length, "OK"]);
  });

  it("writes the detail's data as pieces, without the envelope, charging through the caller", async () => {
    const who = caller();
    const held = await readDetail(who, q, 33, login);
    const data = JSON.parse(await text(held.pieces));
    expect(held.whole).toBe(true);
    expect(Object.keys(data)).toEqual(["rut", "periodo", "operacion", "estado", "sin_detalle", "documentos", "registros", "sii"]);
    const docs = rcvDocuments("76192083-9", 202405, "COMPRA").filter((d) => d.estado === "REGISTRO" && d.tipo === 33);
    expect(data.registros).toBe(docs.length);
    // The documents' units beyond the weight (none for a small type), asked of the caller before they are read.
    expect(who.charged.map(([units]) => units)).toEqual([0]);
  });

  it("refuses a period the RCV does not have, before the SII", async () => {
    const who = caller();
    await expect(readSummary(who, { ...q, periodo: "201704" }, login)).rejects.toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    expect(who.charged).toEqual([]);
  });
});
