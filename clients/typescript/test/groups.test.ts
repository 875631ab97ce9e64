// The TypeScript client's typed calls for the operation groups client.test.ts leaves out, each
// against the sandbox with the OpenAPI document's example credentials and documents: Settings,
// Folios, Taxpayers, BTE, Vehicles, Submissions, Exchanges and Certification. Writes run in
// dry_run, or for real where the sandbox keeps what they change and a later read shows it.
import { describe, expect, it } from "vitest";
import type { JobQueue } from "../../../src/ports/jobs.ts";
import { EXAMPLE_CLAVE, EXAMPLE_PFX } from "../../../src/routes/example-credentials.ts";
import { EXAMPLE_CAF, EXAMPLE_ENVELOPE } from "../../../src/routes/example-documents.ts";
import { runDueJobs } from "../../../src/services/job-runner.ts";
import type { RecordingWebhookSender } from "../../../test/support/webhook-sender.ts";
import { verifyWebhook, WebhookVerificationError } from "../src/index.ts";
import { gateway } from "./gateway.ts";

/** The sandbox company (Comercial Sandbox SpA) and its representative's certificate. */
const COMPANY = EXAMPLE_CLAVE.rut;
const cert = { auth: { cert: EXAMPLE_PFX } };
/** An invoice the sandbox company received: the subject of the Exchanges examples. */
const RECEIVED: { emisor: string; dte: 33; folio: number } = { emisor: "77123456-9", dte: 33, folio: 1001 };

describe("the TypeScript client's operation groups", () => {
  it("Webhooks: registers, changes (PATCH) and tests an endpoint; its delivery verifies with verifyWebhook, a tampered one does not", async () => {
    const { client, deps } = await gateway();
    const made = (await client.POST("/api/v1/webhooks/endpoints", { body: { url: "https://erp.example.cl/hooks" } })).data.data;
    expect(made.secreto).toMatch(/^whsec_/);
    const id = { path: { id: made.endpoint.id } };
    const changed = await client.PATCH("/api/v1/webhooks/endpoints/{id}", { params: id, body: { eventos: ["webhook.endpoint_disabled"] } });
    expect(changed.data.data.eventos).toEqual(["webhook.endpoint_disabled"]);
    const tested = (await client.POST("/api/v1/webhooks/endpoints/{id}/test", { params: id })).data.data;
    await runDueJobs(deps.jobs as unknown as JobQueue, deps);
    const [delivery] = (deps.webhooks as RecordingWebhookSender).sent;
    const event = await verifyWebhook(made.secreto, delivery!.headers, delivery!.body);
    expect([event.id, event.type]).toEqual([tested.event.id, "webhook.test"]);
    await expect(verifyWebhook(made.secreto, delivery!.headers, delivery!.body.replace("webhook.test", "webhook.tost"))).rejects.toThrow(
      WebhookVerificationError,
    );
    await expect(verifyWebhook(made.secreto, delivery!.headers, delivery!.body, { now: Date.now() + 301_000 })).rejects.toThrow("too far");
    const rotated = (await client.POST("/api/v1/webhooks/endpoints/{id}/rotate-secret", { params: id })).data.data;
    expect(rotated.secreto).not.toBe(made.secreto);
    expect((await client.DELETE("/api/v1/webhooks/endpoints/{id}", { params: id })).data.data).toEqual({
      id: made.endpoint.id,
      eliminado: true,
    });
  });

  it("Settings: stores a proxy, reads it back without its password, and tests it", async () => {
    const { client } = await gateway();
    expect((await client.GET("/api/v1/settings/proxy")).data.data.enabled).toBe(false);
    const url = "http://proxy.example.cl:3128";
    const saved = await client.PUT("/api/v1/settings/proxy", { body: { enabled: true, url, username: "erp", password: "s3cret" } });
    expect(saved.data.data).toMatchObject({ enabled: true, url, username: "erp", password_set: true });
    const read = await client.GET("/api/v1/settings/proxy");
    expect(read.data.data.url).toBe(url);
    expect(JSON.stringify(read.data)).not.toContain("s3cret");
    const tested = await client.POST("/api/v1/settings/proxy/test", { params: { query: { ambiente: "0" } } });
    expect(tested.data.data).toMatchObject({ reachable: true, proxy: url, sii_status: 200, upstream: "sandbox" });
  });

  it("Folios: loads a CAF into the ledger, sets its threshold, reads it; requests and annuls in dry_run", async () => {
    const { client, sent } = await gateway();
    const ledger: { path: { emisor: string; dte: 34 } } = { path: { emisor: COMPANY, dte: 34 } };
    const added = await client.POST("/api/v1/platform/dte/folios/{emisor}/{dte}", { params: ledger, body: { caf: EXAMPLE_CAF } });
    expect(added.data.data).toMatchObject({ disponibles: 100, siguiente: 1 });
    const threshold = await client.PUT("/api/v1/platform/dte/folios/{emisor}/{dte}/umbral", { params: ledger, body: { umbral: 50 } });
    expect(threshold.data.data).toMatchObject({ umbral: 50, bajo_umbral: false });
    const read = await client.GET("/api/v1/platform/dte/folios/{emisor}/{dte}", { params: ledger });
    expect(read.data.data.rangos.map((r) => [r.desde, r.hasta, r.usados])).toEqual([[1, 100, 0]]);

    const requested = await client.POST("/api/v1/sii/dte/caf/solicitar/{emisor}/{dte}/{cantidad}", {
      params: { path: { emisor: COMPANY, dte: 33, cantidad: 10 }, query: { ambiente: "0", dry_run: "true" } },
      body: cert,
    });
    const { folio_inicial, folio_final, cantidad, caf_xml, vista_previa } = requested.data.data;
    expect([cantidad, folio_final - folio_inicial + 1, caf_xml]).toEqual([10, 10, ""]);
    expect(vista_previa?.provisionales).toContain("caf_xml");
    expect(sent.at(-1)?.headers.get("idempotency-key")).toMatch(/^[0-9a-f-]{36}$/);
    const annulled = await client.POST("/api/v1/sii/dte/caf/anular/{emisor}/{dte}/{folio_inicial}/{folio_final}", {
      params: { path: { emisor: COMPANY, dte: 33, folio_inicial: 91, folio_final: 100 }, query: { ambiente: "0", dry_run: "true" } },
      body: cert,
    });
    expect(annulled.data.data.folios_anulados).toBe(10);
  });

  it("Taxpayers: reads the sandbox company's data with the certificate", async () => {
    const { client } = await gateway();
    const datos = await client.POST("/api/v1/sii/dte/contribuyentes/datos/{contribuyente}", {
      params: { path: { contribuyente: COMPANY }, query: { ambiente: "0" } },
      body: cert,
    });
    expect(datos.data.data).toMatchObject({ rut: COMPANY, razon_social: "COMERCIAL SANDBOX SPA" });
    expect(datos.data.data.giros.length).toBeGreaterThan(0);
  });

  // The BTE summary page is a shape the sandbox and the gateway both inferred (docs/sandbox.md).
  it("BTE: a year's summary with the clave, its months adding up to the year", { tags: ["inferred-sii-shape"] }, async () => {
    const { client } = await gateway();
    const bte = await client.POST("/api/v1/sii/bte/emitidas/resumen/{anio}", {
      params: { path: { anio: 2025 } },
      body: { auth: { pass: EXAMPLE_CLAVE } },
    });
    const { anio, emisor, mensual, anual } = bte.data.data;
    expect([anio, emisor]).toEqual([2025, COMPANY]);
    expect(anual.folios).toBeGreaterThan(0);
    expect(mensual.reduce((n, m) => n + m.folios, 0)).toBe(anual.folios);
    expect(mensual.reduce((n, m) => n + m.total, 0)).toBe(anual.total);
  });

  it("Vehicles: a category's types, brands and characteristics, and an appraisal search", async () => {
    const { client } = await gateway();
    const category: { params: { path: { categoria: 1 }; query: { anio_tasa: number } } } = {
      params: { path: { categoria: 1 }, query: { anio_tasa: 2026 } },
    };
    const tipos = await client.GET("/api/v1/sii/vehiculos/categorias/tipos/{categoria}", category);
    expect(tipos.data.data.tipos).toContainEqual({ id: 1, name: "AUTOMOVIL" });
    const marcas = await client.GET("/api/v1/sii/vehiculos/categorias/marcas/{categoria}", category);
    expect(marcas.data.data.marcas.map((m) => m.name)).toContain("SUZUKI");
    const traits = await client.GET("/api/v1/sii/vehiculos/categorias/caracteristicas/{categoria}", category);
    const fuel = traits.data.data.caracteristicas.find((c) => c.name === "Combustible");
    expect(fuel?.data.map((d) => d.name)).toContain("DIESEL");
    const found = await client.POST("/api/v1/sii/vehiculos/tasacion/buscar", { body: { categoria: 1, tipo: 1, marca: "SUZUKI" } });
    const { total, tipo, vehiculos } = found.data.data;
    expect(tipo.name).toBe("AUTOMOVIL");
    expect(total).toBeGreaterThan(0);
    expect(new Set(vehiculos.map((v) => `${v.marca} ${v.tipo}`))).toEqual(new Set(["SUZUKI AUTOMOVIL"]));
  });

  it("Submissions: verifies the example envelope, previews and sends it, and reads its track", async () => {
    const { client } = await gateway();
    const checked = await client.POST("/api/v1/platform/dte/envios/verificar", {
      params: { query: { ambiente: "0" } },
      body: { xml: EXAMPLE_ENVELOPE },
    });
    expect(checked.data.data.valido).toBe(true);
    expect(checked.data.data.sobre?.firmante?.rut).toBe("11111111-1");
    const send = (dry_run: "true" | "false") =>
      client.POST("/api/v1/platform/dte/envios/enviar", {
        params: { query: { ambiente: "0", dry_run } },
        body: { ...cert, xml: EXAMPLE_ENVELOPE },
      });
    const preview = (await send("true")).data.data;
    expect(preview).toMatchObject({ track_id: null, emisor: COMPANY, documentos: [{ tipo: 34, folio: 1 }] });
    const uploaded = (await send("false")).data.data;
    expect(uploaded.track_id).toMatch(/^\d+$/);
    const status = (track_id: string) =>
      client.POST("/api/v1/platform/dte/envios/estado/{emisor}/{track_id}", {
        params: { path: { emisor: COMPANY, track_id }, query: { ambiente: "0" } },
        body: cert,
      });
    expect((await status(uploaded.track_id ?? "")).data.data.track_id).toBe(uploaded.track_id);
    // The example's track: a submission the sandbox has already processed and accepted.
    const done = (await status("0260000001")).data.data;
    expect(done.resultado).toBe("aceptado");
    expect(done.documentos.map((d) => [d.tipo, d.informados - d.aceptados])).toEqual([[33, 0]]);
  });

  it("Exchanges: accepts a received invoice, which the SII then lists as an event and makes assignable", async () => {
    const { client } = await gateway();
    const path: { path: typeof RECEIVED; query: { ambiente: "0" } } = { path: RECEIVED, query: { ambiente: "0" } };
    const received = await client.POST("/api/v1/platform/dte/intercambios/recepcion_sii/{emisor}/{dte}/{folio}", {
      params: path,
      body: cert,
    });
    expect(received.data.data).toMatchObject(RECEIVED);
    expect(received.data.data.fecha_recepcion).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const events = () => client.POST("/api/v1/platform/dte/intercambios/eventos/{emisor}/{dte}/{folio}", { params: path, body: cert });
    expect((await events()).data.data.eventos).toEqual([]);
    const cesion = () => client.POST("/api/v1/platform/dte/intercambios/cesion/{emisor}/{dte}/{folio}", { params: path, body: cert });
    expect((await cesion()).data.data.cedible).toBe(false);

    const answer = (dry_run: "true" | "false") =>
      client.POST("/api/v1/platform/dte/intercambios/respuesta_sii", {
        params: { query: { ambiente: "0", dry_run } },
        body: { ...cert, documentos: [{ ...RECEIVED, accion: "ACD" }] },
      });
    expect((await answer("true")).data.data).toMatchObject({ no_enviados: 1, registrados: 0 });
    const accepted = (await answer("false")).data.data;
    expect(accepted.registrados).toBe(1);
    expect(accepted.documentos[0]?.resultado).toBe("registrado");
    expect((await events()).data.data.eventos.map((e) => [e.codigo, e.responsable])).toEqual([["ACD", COMPANY]]);
    expect((await cesion()).data.data.cedible).toBe(true);
  });

  // The application form, the progress page and the company-data page are inferred shapes (docs/sandbox.md).
  it("Certification: applies, gets both test sets, and reads the progress and the company's data", {
    tags: ["inferred-sii-shape"],
  }, async () => {
    const { client } = await gateway();
    const company = { path: { contribuyente: COMPANY } };
    const before = await client.POST("/api/v1/sii/certificacion/contribuyentes/datos/{contribuyente}", { params: company, body: cert });
    expect(before.data.data.estado).toBe("SIN RESOLUCION");
    const applied = await client.POST("/api/v1/sii/certificacion/facturas/postular/{contribuyente}", {
      params: company,
      body: { ...cert, email: "contacto@example.cl", software: "Facturador propio" },
    });
    expect(applied.data.data).toMatchObject({ contribuyente: COMPANY, postulado: true });

    const invoices = (dry_run: "true" | "false") =>
      client.POST("/api/v1/sii/certificacion/facturas/solicitar_set/{contribuyente}", {
        params: { ...company, query: { dry_run } },
        body: cert,
      });
    expect((await invoices("true")).data.data.sets).toEqual([]);
    const sets = (await invoices("false")).data.data.sets;
    expect(sets.map((s) => s.nombre)).toEqual(["SET BASICO", "SET LIBRO DE VENTAS", "SET LIBRO DE COMPRAS"]);
    expect(sets[0]?.casos[0]).toMatchObject({ caso: `${sets[0]?.numero_atencion}-1`, tipo: 33 });
    const receipts = await client.POST("/api/v1/sii/certificacion/boletas/solicitar_set/{contribuyente}", { params: company, body: cert });
    expect(receipts.data.data.sets[0]?.casos.every((c) => c.tipo === 39)).toBe(true);

    const progress = await client.POST("/api/v1/sii/certificacion/postulacion/avance/{contribuyente}", { params: company, body: cert });
    expect(progress.data.data.sets[0]).toMatchObject({
      set: "SET BASICO",
      numero_atencion: sets[0]?.numero_atencion,
      estado: "SIN DECLARAR",
    });
    const after = await client.POST("/api/v1/sii/certificacion/contribuyentes/datos/{contribuyente}", { params: company, body: cert });
    expect(after.data.data).toMatchObject({
      software: "Facturador propio",
      emails: { contacto_sii: "contacto@example.cl" },
      estado: "EN CERTIFICACION",
    });
  });
});
