// The vehicle appraisal index in DynamoDB (dynalite on loopback): an item holds at most 400 KB,
// so the index is stored in parts; the largest part the index writes must fit even when every
// character takes three UTF-8 bytes, and a search must work from the stored index.
import { describe, expect, it } from "vitest";
import { createDynamoStores } from "../../src/adapters/lambda/dynamodb-stores.ts";
import { Result } from "../../src/routes/vehiculos/tasacion-buscar.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { sandboxTransport } from "../../src/sandbox/transport.ts";
import { sandboxVehicles } from "../../src/sandbox/vehiculos.ts";
import { PART_CHARS } from "../../src/sii/vehiculos-index.ts";
import { answerOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";
import { localDynamoDb } from "../support/local-dynamodb.ts";

const local = localDynamoDb("vehicles");

describe("vehicle appraisal index in DynamoDB", () => {
  it("keeps every part under the item limit, even of three-byte characters (and the limit is real here)", async () => {
    const { cache } = createDynamoStores(local.config);
    const now = new Date();
    const widest = "€".repeat(PART_CHARS);
    await cache.put("vehiculos:test:0", widest, now);
    expect(await cache.get("vehiculos:test:0", now)).toBe(widest);
    // DynamoDB counts UTF-8 bytes (dynalite counts characters, so the byte arithmetic is checked here).
    expect(new TextEncoder().encode(widest).length).toBeLessThan(399 * 1024);
    await expect(cache.put("vehiculos:test:1", "x".repeat(410 * 1024), now)).rejects.toThrow();
  });

  it("answers a search from the index stored there", async () => {
    const now = new Date("2026-03-20T12:00:00Z");
    const rows = 9000;
    const t = probeApp({ ...createDynamoStores(local.config) });
    t.deps.clock = { now: () => now };
    t.deps.sii = sandboxTransport(createDefaultSandbox({ now: () => now.getTime(), vehicleRows: rows }));
    const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
    const res = await postJson(t.app, token.secret, "/api/v1/sii/vehiculos/tasacion/buscar", {
      categoria: 1,
      tipo: "AUTOMOVIL",
      marca: "HYUNDAI",
    });
    expect(res.status).toBe(200);
    const expected = sandboxVehicles("liv", 2026, rows).filter((v) => v.tipo === "AUTOMOVIL" && v.marca === "HYUNDAI");
    expect((await answerOf(res, Result)).data.total).toBe(expected.length);
  });
});
