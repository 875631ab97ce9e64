// One SII service, one name: the name an error gives in `details.service` is the one the
// simulator counts the service's calls by and switches its faults on by.
import { describe, expect, it } from "vitest";
import { JobEnvelope } from "../../src/routes/rcv/schema.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { ASYNC_STEP_MS } from "../../src/sandbox/rcv.ts";
import { sandboxTransport, simulatorOf } from "../../src/sandbox/transport.ts";
import { answerOf, errorOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";

const auth = { pass: { rut: "76192083-9", clave: "sandbox76" } };
const cert = { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem };
const boleta = { tipo_documento: 39, documentos: 1, monto_exento: 0, monto_neto: 840, monto_iva: 160, monto_total: 1000 };

interface Case {
  service: string;
  /** Calls made before the failing one (without faults); returns the failing call's path and body. */
  prepare: (post: (path: string, body: unknown) => Promise<Response>, later: (ms: number) => void) => Promise<[string, unknown]>;
}

const plain =
  (path: string, body: unknown = { auth }) =>
  async (): Promise<[string, unknown]> => [path, body];

const CASES: Case[] = [
  // The certificate login reads its TOKEN from the RCV's start page.
  { service: "session_token", prepare: plain("/api/v1/sii/rcv/compras/resumen/76192083-9/202405/REGISTRO", { auth: { cert } }) },
  { service: "rcv_resumen", prepare: plain("/api/v1/sii/rcv/compras/resumen/76192083-9/202405/REGISTRO") },
  { service: "rcv_detalle", prepare: plain("/api/v1/sii/rcv/compras/detalle/76192083-9/202405/33/REGISTRO") },
  { service: "rcv_detalle", prepare: plain("/api/v1/sii/rcv/compras/detalle/documento/76192083-9/202405/33/1001") },
  { service: "rcv_export", prepare: plain("/api/v1/sii/rcv/ventas/detalle/76192083-9/202405/33?formato=csv") },
  { service: "rcv_async", prepare: plain("/api/v1/sii/rcv/ventas/async/solicitar/76192083-9/202405/33") },
  { service: "rcv_write", prepare: plain("/api/v1/sii/rcv/ventas/set_resumen/76192083-9/202401", { auth, resumenes: [boleta] }) },
  {
    service: "rcv_boletas",
    prepare: async (post) => {
      expect((await post("/api/v1/sii/rcv/ventas/set_resumen/76192083-9/202401", { auth, resumenes: [boleta] })).status).toBe(200);
      return ["/api/v1/sii/rcv/ventas/get_detalle_resumen/76192083-9/202401", { auth }];
    },
  },
  { service: "reclamos", prepare: plain("/api/v1/platform/dte/intercambios/cesion/77123456-9/33/1002", { auth: { cert } }) },
  { service: "reclamos", prepare: plain("/api/v1/platform/dte/intercambios/eventos/77123456-9/33/1002", { auth: { cert } }) },
  { service: "reclamos", prepare: plain("/api/v1/platform/dte/intercambios/recepcion_sii/77123456-9/33/1002", { auth: { cert } }) },
  {
    service: "rcv_blob",
    prepare: async (post, later) => {
      const requested = await post("/api/v1/sii/rcv/compras/async/solicitar/76192083-9/202405/33/REGISTRO", { auth });
      const id = (await answerOf(requested, JobEnvelope)).data.solicitud_id;
      later(2 * ASYNC_STEP_MS);
      return [`/api/v1/sii/rcv/compras/async/detalle/76192083-9/202405/${id}/33/REGISTRO`, { auth }];
    },
  },
];

describe("SII services keep the simulator's names", () => {
  it.each(CASES)("$service: a failing answer names the service its fault was switched on for", async ({ service, prepare }) => {
    const t = probeApp();
    let skew = 0;
    t.deps.sii = sandboxTransport(createDefaultSandbox({ now: () => Date.now() + skew }));
    const sandbox = simulatorOf(t.deps.sii);
    const token = await tokenFor(t.deps, { scopes: ["sii:read", "sii:write"] });
    const post = (path: string, body: unknown) => postJson(t.app, token.secret, path, body);
    const [path, body] = await prepare(post, (ms) => {
      skew += ms;
    });
    const before = sandbox.state.calls.get(service) ?? 0;
    sandbox.state.faults.push({ service, fault: "http_5xx", remaining: 5 });
    const res = await post(path, body);
    const answer = await errorOf(res);
    expect([res.status, answer.error_code, answer.details?.service], JSON.stringify(answer)).toEqual([502, "SII_GATEWAY_ERROR", service]);
    expect(sandbox.state.calls.get(service)).toBeGreaterThan(before);
  });
});
