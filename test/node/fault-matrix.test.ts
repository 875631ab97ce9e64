// The upstream fault matrix: every operation family against every fault the sandbox can inject
// (maintenance page, throttling, session limit, HTML where XML/JSON was expected, HTTP 500, a
// timeout, a dropped connection, a truncated answer, a gzip blob that is not gzip, the wrong charset). Each must end in the documented status
// with the error envelope and the SII's text or the failure's reason in `details`, Retry-After
// where it applies, and no charge when the SII was unavailable.
import { afterAll, describe, expect, it } from "vitest";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import { bytesToBase64 } from "../../src/lib/encoding.ts";
import { JobEnvelope } from "../../src/routes/rcv/schema.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { ASYNC_STEP_MS } from "../../src/sandbox/rcv.ts";
import type { FaultKind } from "../../src/sandbox/state.ts";
import { sandboxTransport, simulatorOf } from "../../src/sandbox/transport.ts";
import { answerOf, errorOf, SuccessEnvelope } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";
import { signedDte, signedEnvelope } from "../support/envelope.ts";

const cert = { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem };
const company = { auth: { pass: { rut: "76192083-9", clave: "sandbox76" } } };
const pedro = { auth: { pass: { rut: "22222222-2", clave: "sandbox22" } } };
const juana = () => parseCertificateCredential(cert, new Date());
const invoice = { tipo: 33, folio: 7, receptor: "22222222-2", total: 100 };

interface Family {
  name: string;
  /** The sandbox service whose answers go wrong. */
  service: string;
  method: "GET" | "POST";
  path: string;
  /** The JSON body; "verificar", "enviar" and "enviar-boleta" stand for a signed document, DTE envelope and boleta envelope built at test time. */
  body?: unknown;
  /**
   * Calls made before the faulty one, without faults; returns the path of the faulty call.
   * `later` moves the sandbox's clock.
   */
  prepare?: (post: (path: string, body: unknown) => Promise<Response>, later: (ms: number) => void) => Promise<string>;
  /** Faults this service shrugs off: the clave login's answer lives in its cookies, not its body. */
  survives?: FaultKind[];
  /** What the call answers without faults, when not 200 (a well-formed answer of the SII all the same). */
  plainStatus?: number;
}

const FAMILIES: Family[] = [
  { name: "indicators", service: "indicadores", method: "GET", path: "/api/v1/sii/indicadores/uf/anual/2024/03/15" },
  {
    name: "folio request (certificate session, write)",
    service: "caf_request",
    method: "POST",
    path: "/api/v1/sii/dte/caf/solicitar/76192083-9/33/5",
    body: { auth: { cert } },
  },
  {
    name: "taxpayer data (Mi SII)",
    service: "misii_carta",
    method: "POST",
    path: "/api/v1/sii/dte/contribuyentes/datos/76192083-9",
    body: { auth: { cert } },
  },
  {
    name: "BHE e-mail (clave session, write)",
    service: "bhe_email_form",
    method: "POST",
    path: "/api/v1/sii/bhe/emitidas/email/222222220000041F99ED",
    body: { ...pedro, destinatario: { email: "a@b.cl" } },
  },
  { name: "BTE summary", service: "bte_report", method: "POST", path: "/api/v1/sii/bte/emitidas/resumen/2025", body: company },
  {
    name: "RCV summary (JSON facade)",
    service: "rcv_resumen",
    method: "POST",
    path: "/api/v1/sii/rcv/compras/resumen/76192083-9/202405/REGISTRO",
    body: company,
  },
  {
    name: "RCV detail",
    service: "rcv_detalle",
    method: "POST",
    path: "/api/v1/sii/rcv/compras/detalle/76192083-9/202405/33/REGISTRO",
    body: company,
  },
  {
    name: "DTE token (SOAP seed)",
    service: "seed",
    method: "POST",
    path: "/api/v1/platform/dte/envios/estado/76192083-9/0260000001",
    body: { auth: { cert } },
  },
  {
    name: "envelope status (SOAP)",
    service: "envio_status",
    method: "POST",
    path: "/api/v1/platform/dte/envios/estado/76192083-9/0260000001",
    body: { auth: { cert } },
  },
  {
    name: "exchanges (reclamos WS)",
    service: "reclamos",
    method: "POST",
    path: "/api/v1/platform/dte/intercambios/cesion/77123456-9/33/1002",
    body: { auth: { cert } },
  },
  {
    name: "clave login",
    service: "clave_login",
    method: "POST",
    path: "/api/v1/sii/bte/emitidas/resumen/2025",
    body: company,
    survives: ["truncated"],
  },
  {
    name: "certificate login",
    service: "cert_login",
    method: "POST",
    path: "/api/v1/sii/dte/contribuyentes/datos/76192083-9",
    body: { auth: { cert } },
  },
  {
    name: "folio annulment (write)",
    service: "caf_annul",
    method: "POST",
    path: "/api/v1/sii/dte/caf/anular/76192083-9/33/90/95",
    body: { auth: { cert } },
  },
  {
    name: "RCV async request",
    service: "rcv_async",
    method: "POST",
    path: "/api/v1/sii/rcv/compras/async/solicitar/76192083-9/202405/33/REGISTRO",
    body: company,
  },
  {
    name: "RCV CSV export",
    service: "rcv_export",
    method: "POST",
    path: "/api/v1/sii/rcv/compras/detalle/76192083-9/202405/33/REGISTRO?formato=csv",
    body: company,
  },
  {
    name: "RCV write",
    service: "rcv_write",
    method: "POST",
    path: "/api/v1/sii/rcv/ventas/set_resumen/76192083-9/202401",
    body: {
      ...company,
      resumenes: [{ tipo_documento: 39, documentos: 1, monto_exento: 0, monto_neto: 840, monto_iva: 160, monto_total: 1000 }],
    },
  },
  {
    name: "acceptance/claim (write)",
    service: "reclamos",
    method: "POST",
    path: "/api/v1/platform/dte/intercambios/respuesta_sii",
    body: { auth: { cert }, documentos: { emisor: "77123456-9", dte: 33, folio: 1001, accion: "ACD" } },
  },
  {
    name: "document status at the SII (verificar)",
    service: "document_status",
    method: "POST",
    path: "/api/v1/platform/dte/envios/verificar",
    body: "verificar",
  },
  {
    name: "RCV async download (the gzipped file)",
    service: "rcv_blob",
    method: "POST",
    path: "",
    body: company,
    prepare: async (post, later) => {
      const requested = await post("/api/v1/sii/rcv/compras/async/solicitar/76192083-9/202405/33/REGISTRO", company);
      const id = (await answerOf(requested, JobEnvelope)).data.solicitud_id;
      later(2 * ASYNC_STEP_MS);
      return `/api/v1/sii/rcv/compras/async/detalle/76192083-9/202405/${id}/33/REGISTRO`;
    },
  },
  {
    name: "envelope upload (DTEUpload, write)",
    service: "dte_upload",
    method: "POST",
    path: "/api/v1/platform/dte/envios/enviar",
    body: "enviar",
  },
  {
    name: "boleta envelope upload (boleta REST service, write)",
    service: "boleta_upload",
    method: "POST",
    path: "/api/v1/platform/dte/envios/enviar",
    body: "enviar-boleta",
  },
  {
    name: "vehicle appraisal search (yearly workbook)",
    service: "vehiculos",
    method: "POST",
    path: "/api/v1/sii/vehiculos/tasacion/buscar",
    body: { categoria: 1, tipo: 1 },
  },
  {
    name: "certification (maullin CGIs)",
    service: "certification_progress",
    method: "POST",
    path: "/api/v1/sii/certificacion/postulacion/avance/76192083-9",
    body: { auth: { cert } },
    // The sandbox's company has not applied: the SII's own "not applied" page, read as such.
    plainStatus: 404,
  },
];

const EXPECTED: Record<Exclude<FaultKind, "charset">, { status: number; code: string; retryAfter?: boolean; free?: boolean }> = {
  maintenance: { status: 503, code: "SII_UNAVAILABLE", retryAfter: true, free: true },
  throttle: { status: 429, code: "SII_RATE_LIMIT", retryAfter: true },
  session_limit: { status: 429, code: "SII_RATE_LIMIT", retryAfter: true },
  html: { status: 502, code: "SII_GATEWAY_ERROR" },
  http_5xx: { status: 502, code: "SII_GATEWAY_ERROR" },
  timeout: { status: 502, code: "SII_GATEWAY_ERROR" },
  reset: { status: 502, code: "SII_GATEWAY_ERROR" },
  truncated: { status: 502, code: "SII_GATEWAY_ERROR" },
  bad_gzip: { status: 502, code: "SII_GATEWAY_ERROR" },
};

/** Faults exercised per family: the figures for the closing note. */
const exercised = new Map<string, Set<string>>();
afterAll(() => {
  const faults = new Set([...exercised.values()].flatMap((f) => [...f]));
  const pairs = [...exercised.values()].reduce((n, f) => n + f.size, 0);
  console.info(`fault matrix: ${exercised.size} families × ${faults.size} faults (${[...faults].join(", ")}) = ${pairs} pairs exercised`);
});

/** One call of the family's operation on a fresh gateway, with `fault` switched on for its service. */
async function call(family: Family, fault: FaultKind | null) {
  const t = probeApp();
  let skew = 0;
  // A small appraisal workbook: the default one takes the sandbox a while to write.
  t.deps.sii = sandboxTransport(createDefaultSandbox({ vehicleRows: 500, now: () => Date.now() + skew }));
  const token = await tokenFor(t.deps, { scopes: ["sii:read", "sii:write"] });
  const path = family.prepare
    ? await family.prepare(
        (p, b) => postJson(t.app, token.secret, p, b),
        (ms) => {
          skew += ms;
        },
      )
    : family.path;
  // Only the timeout fault's call meets a short SII time limit (the least the config takes), after the
  // preparing calls: on a starved machine another answer may itself take longer to come, which would end
  // it as a timeout instead of what it tests; in the timeout fault's call, a timeout is what it tests.
  if (fault === "timeout") t.deps.config.siiTimeoutMs = 100;
  if (fault) {
    simulatorOf(t.deps.sii).state.faults.push({ service: family.service, fault, remaining: 50 });
    exercised.set(family.name, (exercised.get(family.name) ?? new Set()).add(fault));
  }
  const body =
    family.body === "verificar"
      ? { auth: { cert }, xml: bytesToBase64(new TextEncoder().encode(await signedDte(await juana(), "76192083-9", invoice))) }
      : family.body === "enviar"
        ? { auth: { cert }, xml: bytesToBase64(await signedEnvelope(await juana(), "76192083-9", [{ ...invoice, folio: 11 }])) }
        : family.body === "enviar-boleta"
          ? {
              auth: { cert },
              xml: bytesToBase64(
                await signedEnvelope(await juana(), "76192083-9", [{ tipo: 39, folio: 1, receptor: "66666666-6", total: 2_990 }], {
                  kind: "EnvioBOLETA",
                }),
              ),
            }
          : family.body;
  const res =
    family.method === "GET"
      ? await t.app.request(path, { headers: { "x-api-token": token.secret } })
      : await postJson(t.app, token.secret, path, body);
  // A failure answers the error envelope; a success its data, or the bytes as text when not JSON.
  if (!/json/.test(res.headers.get("content-type") ?? "")) return { res, data: await res.text() };
  if (res.ok) return { res, data: (await answerOf(res, SuccessEnvelope)).data };
  return { res, error: await errorOf(res) };
}

/** What must read the same whatever charset the SII declared: all but values made fresh per call
 * (generated CAFs, attention numbers, and clock times, which may tick between the two calls). */
const stable = (data: unknown) =>
  JSON.stringify(data, (key, value) => {
    if (["caf_xml", "num_atencion"].includes(key)) return undefined;
    return typeof value === "string" ? value.replace(/\d{2}:\d{2}:\d{2}/g, "hh:mm:ss") : value;
  });

describe.each(FAMILIES)("$name", (family) => {
  it.each(Object.keys(EXPECTED) as (keyof typeof EXPECTED)[])("%s", async (fault) => {
    const { res, error: answer } = await call(family, fault);
    if (family.survives?.includes(fault)) {
      expect(res.status).toBe(200);
      return;
    }
    const want = EXPECTED[fault];
    expect([res.status, answer?.error_code], JSON.stringify(answer)).toEqual([want.status, want.code]);
    expect(answer).toMatchObject({ success: false, request_id: expect.any(String) });
    const explained = answer?.details?.sii_message ?? answer?.details?.reason ?? answer?.details?.sii_status;
    expect(explained, JSON.stringify(answer?.details)).toBeTruthy();
    if (want.retryAfter) expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    if (want.free) expect(res.headers.get("x-quota-units")).toBe("0");
  });

  it("charset (the answer in the other charset than declared): read through, same outcome as without the fault", async () => {
    const plain = await call(family, null);
    // Without faults every family's call gets its ordinary answer: each fault is the only thing that went wrong.
    expect(plain.res.status, JSON.stringify(plain.error ?? plain.data).slice(0, 300)).toBe(family.plainStatus ?? 200);
    const swapped = await call(family, "charset");
    expect([swapped.res.status, swapped.error?.error_code]).toEqual([plain.res.status, plain.error?.error_code]);
    if (plain.res.status === 200) expect(stable(swapped.data)).toBe(stable(plain.data));
  });
});

describe("irreversible writes under faults", () => {
  it("sends a folio request to the SII at most once per Idempotency-Key, even when the first attempt timed out", async () => {
    const t = probeApp(undefined, { siiTimeoutMs: 300 });
    const token = await tokenFor(t.deps, { scopes: ["sii:write"] });
    const sandbox = simulatorOf(t.deps.sii);
    sandbox.state.faults.push({ service: "caf_generate", fault: "timeout", remaining: 1 });
    const request = () =>
      postJson(
        t.app,
        token.secret,
        "/api/v1/sii/dte/caf/solicitar/76192083-9/33/5",
        { auth: { cert } },
        { "idempotency-key": "folios-once" },
      );
    const first = await request();
    expect([first.status, (await errorOf(first)).details?.reason]).toEqual([502, "timeout"]);
    const again = await request();
    expect(again.status).toBe(502);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(sandbox.state.calls.get("caf_generate")).toBe(1);
  });
});
