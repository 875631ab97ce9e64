// The folio ledger API: adding a CAF (read and authenticated as generar reads it) and reading what
// the account holds, against the sandbox's CAF-signing key.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { memoryStores } from "../../src/adapters/memory/stores.ts";
import { sqliteStores } from "../../src/adapters/node/sqlite-stores.ts";
import { base64ToBytes, bytesToBase64 } from "../../src/lib/encoding.ts";
import { decodeLatin1, encodeLatin1 } from "../../src/lib/latin1.ts";
import { open } from "../../src/lib/secret-box.ts";
import type { Scope } from "../../src/ports/access.ts";
import { EXAMPLE_CAF } from "../../src/routes/example-documents.ts";
import { AddedEnvelope, LedgerEnvelope } from "../../src/routes/folio-ledger-schema.ts";
import { buildCaf } from "../../src/sandbox/folios-caf.ts";
import { ledgerView } from "../../src/services/folio-ledger.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const COMPANY = "76192083-9";
const path = (emisor = COMPANY, dte = 34) => `/api/v1/platform/dte/folios/${emisor}/${dte}`;
const exampleXml = decodeLatin1(base64ToBytes(EXAMPLE_CAF));
const b64 = (xml: string) => bytesToBase64(encodeLatin1(xml));

async function setup(stores = memoryStores()) {
  const t = probeApp(stores);
  const as = async (account: string, scopes?: Scope[]) => {
    const token = await tokenFor(t.deps, { account, scopes });
    return {
      add: (caf: string, p = path()) => postJson(t.app, token.secret, p, { caf }),
      get: (p = path()) => t.app.request(p, { headers: { "x-api-token": token.secret } }),
    };
  };
  return { ...t, as };
}

describe("folio ledger", () => {
  it("adds a sandbox CAF, answers the range and the ledger, and keeps the file only sealed", async () => {
    const t = await setup();
    const acme = await t.as("acme");
    const res = await acme.add(EXAMPLE_CAF);
    expect(res.status).toBe(200);
    const text = await res.clone().text();
    expect(text).not.toContain("RSASK");
    expect(text).not.toContain("PRIVATE KEY");
    const range = {
      desde: 1,
      hasta: 100,
      usados: 0,
      anulados: 0,
      sin_respuesta: 0,
      disponibles: 100,
      autorizado: "2026-11-25",
      vence: null,
    };
    const flags = { bajo_umbral: false, por_vencer: false };
    const ledger = { disponibles: 100, siguiente: 1, umbral: null, bajo_umbral: false, rangos: [{ ...range, ...flags }] };
    expect((await answerOf(res, AddedEnvelope)).data).toEqual({ ...ledger, rango: { ...range, ...flags } });
    const got = await acme.get();
    expect(got.status).toBe(200);
    expect((await answerOf(got, LedgerEnvelope)).data).toEqual(ledger);

    const sealed = (await t.deps.folios.cafOf("acme", COMPANY, 34, 1)) ?? "";
    expect(sealed).not.toContain("RSASK");
    expect(sealed).not.toContain(EXAMPLE_CAF.slice(0, 40));
    expect(await open(t.deps.config.secretKey, "folio-caf", sealed)).toBe(EXAMPLE_CAF);
  });

  it("stores the CAF's private key only sealed in the SQLite file", async () => {
    const sqlite = sqliteStores(join(mkdtempSync(join(tmpdir(), "sii-gw-")), "ledger.sqlite"));
    const t = await setup({ ...memoryStores(), folios: sqlite.folios });
    expect((await (await t.as("acme")).add(exampleXml)).status).toBe(200);
    // The account's ledger, and the issuer's register of who holds which range.
    const rows = sqlite.db.prepare("SELECT state FROM folio_ledgers").all() as { state: string }[];
    expect(rows).toHaveLength(2);
    const stored = rows.map((r) => r.state).join("\n");
    const rsask = /<RSASK>([\s\S]*?)<\/RSASK>/.exec(exampleXml)?.[1] ?? "";
    expect(rsask.length).toBeGreaterThan(100);
    for (const secret of ["RSASK", "PRIVATE KEY", rsask.replace(/-----[^-]+-----|\s+/g, "").slice(20, 80)])
      expect(stored).not.toContain(secret);
  });

  it("says when a type 33 range expires (six months after its authorization)", async () => {
    const t = await setup();
    const acme = await t.as("acme");
    const caf = await buildCaf({ rut: COMPANY, razonSocial: "COMERCIAL SANDBOX SPA", tipo: 33, desde: 1, hasta: 10, fecha: "2026-11-01" });
    const res = await acme.add(b64(caf), path(COMPANY, 33));
    expect(res.status).toBe(200);
    expect((await answerOf(res, AddedEnvelope)).data.rango).toMatchObject({ autorizado: "2026-11-01", vence: "2027-05-01" });
  });

  it("refuses a CAF of another issuer or type, naming the field", async () => {
    const t = await setup();
    const acme = await t.as("acme");
    const otherIssuer = await acme.add(EXAMPLE_CAF, path("11111111-1", 34));
    expect(otherIssuer.status).toBe(400);
    expect((await errorOf(otherIssuer)).errors).toEqual([
      { path: "caf.DA.RE", location: "body", message: expect.stringContaining(COMPANY) },
    ]);
    const otherType = await acme.add(EXAMPLE_CAF, path(COMPANY, 33));
    expect(otherType.status).toBe(400);
    expect((await errorOf(otherType)).errors?.[0]?.path).toBe("caf.DA.TD");
    expect((await acme.get(path(COMPANY, 33))).status).toBe(404);
  });

  it("refuses a forged CAF: an edited range, or the genuine DA in a comment", async () => {
    const t = await setup();
    const acme = await t.as("acme");
    const edited = await acme.add(b64(exampleXml.replace("<H>100</H>", "<H>9000</H>")));
    expect(edited.status).toBe(400);
    expect((await errorOf(edited)).errors?.[0]).toMatchObject({ path: "caf.FRMA", message: expect.stringContaining("not authentic") });

    const genuineDa = /<DA>[\s\S]*?<\/DA>/.exec(exampleXml)?.[0] ?? "";
    const forgedDa = genuineDa.replace("<H>100</H>", "<H>9000</H>");
    const commented = exampleXml.replace(genuineDa, `<!--${genuineDa}-->${forgedDa}`);
    const hidden = await acme.add(b64(commented));
    expect(hidden.status).toBe(400);
    expect((await errorOf(hidden)).errors?.[0]?.message).toContain("comment");
    expect((await acme.get()).status).toBe(404);
  });

  it("refuses a range overlapping one held (409 naming it)", async () => {
    const t = await setup();
    const acme = await t.as("acme");
    expect((await acme.add(EXAMPLE_CAF)).status).toBe(200);
    const overlapping = await buildCaf({
      rut: COMPANY,
      razonSocial: "COMERCIAL SANDBOX SPA",
      tipo: 34,
      desde: 50,
      hasta: 150,
      fecha: "2026-11-01",
    });
    const res = await acme.add(b64(overlapping));
    expect(res.status).toBe(409);
    const body = await errorOf(res);
    expect(body.error_code).toBe("FOLIOS_OVERLAP");
    expect(body.details).toEqual({ desde: 1, hasta: 100 });
    expect(body.message).toContain("1–100");
    const next = await buildCaf({
      rut: COMPANY,
      razonSocial: "COMERCIAL SANDBOX SPA",
      tipo: 34,
      desde: 101,
      hasta: 150,
      fecha: "2026-11-01",
    });
    const added = await acme.add(b64(next));
    expect(added.status).toBe(200);
    expect((await answerOf(added, AddedEnvelope)).data.disponibles).toBe(150);
  });

  it("needs a token (401) and the scope of each call (403)", async () => {
    const t = await setup();
    expect((await t.app.request(path())).status).toBe(401);
    const reader = await t.as("acme", ["sii:read"]);
    const write = await reader.add(EXAMPLE_CAF);
    expect(write.status).toBe(403);
    expect((await errorOf(write)).error_code).toBe("INSUFFICIENT_SCOPE");
    const settingsOnly = await t.as("acme", ["settings:read"]);
    expect((await settingsOnly.get()).status).toBe(403);
  });

  it("keeps accounts apart: another account sees 404, and cannot add a CAF range an account holds (one CAF, one ledger)", async () => {
    const t = await setup();
    const acme = await t.as("acme");
    const other = await t.as("other");
    expect((await acme.add(EXAMPLE_CAF)).status).toBe(200);
    const missing = await other.get();
    expect(missing.status).toBe(404);
    expect((await errorOf(missing)).error_code).toBe("HTTP_404");
    const twice = await other.add(EXAMPLE_CAF);
    const refusal = await errorOf(twice);
    expect([twice.status, refusal.error_code, refusal.details]).toEqual([409, "FOLIOS_OVERLAP", { otra_cuenta: true }]);
    expect(refusal.message).toContain("held by another account");
    // The holder is not named.
    expect(JSON.stringify(refusal)).not.toContain("acme");
    expect((await other.get()).status).toBe(404);
    expect((await answerOf(await acme.get(), LedgerEnvelope)).data.siguiente).toBe(1);
  });

  it("flags por_vencer from 30 days before vence to vence, never once expired; bajo_umbral over the whole type", () => {
    const range = (desde: number, vence: string | null, disponibles = 10) => ({
      desde,
      hasta: desde + 9,
      autorizado: "2026-03-01",
      vence,
      usados: 10 - disponibles,
      anulados: 0,
      sin_respuesta: 0,
      disponibles,
      siguiente: disponibles ? desde : null,
    });
    const view = ledgerView(
      [range(1, "2026-10-31"), range(11, "2026-11-30"), range(21, "2026-12-01"), range(31, null, 3)],
      "2026-11-01",
      23,
    );
    expect(view.rangos.map((r) => r.por_vencer)).toEqual([false, true, true, false]);
    // 10 + 10 + 3 left in the ranges not expired: at the threshold, so every range is flagged.
    expect([view.disponibles, view.bajo_umbral, view.rangos.every((r) => r.bajo_umbral)]).toEqual([23, true, true]);
    expect(ledgerView([range(1, null)], "2026-11-01", 9).bajo_umbral).toBe(false);
    expect(ledgerView([range(1, null)], "2026-11-01", null).rangos[0]?.bajo_umbral).toBe(false);
    expect(ledgerView([range(1, "2026-12-02")], "2026-11-01", null).rangos[0]?.por_vencer).toBe(false);
  });
});
