// The spec's statuses for the five fully specified operations, in one table: no token (401),
// SII throttling (429 SII_RATE_LIMIT), SII failure (502 SII_GATEWAY_ERROR), SII maintenance
// (503 SII_UNAVAILABLE, not charged), and the plan used up (429 QUOTA_EXCEEDED).
import { describe, expect, it } from "vitest";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import type { FaultKind } from "../../src/sandbox/state.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { errorOf } from "../support/answers.ts";
import { probeApp, tokenFor } from "../support/app.ts";

const juana = {
  auth: { cert: { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem } },
};

interface Operation {
  name: string;
  path: string;
  body: unknown;
  weight: number;
  /** The SII service that answers the operation's own request (after the login). */
  service: string;
}

const operations: Operation[] = [
  { name: "folio request", path: "/api/v1/sii/dte/caf/solicitar/76192083-9/33/5", body: juana, weight: 5, service: "caf_request" },
  { name: "folio annulment", path: "/api/v1/sii/dte/caf/anular/76192083-9/33/90/95", body: juana, weight: 5, service: "caf_annul" },
  { name: "taxpayer data", path: "/api/v1/sii/dte/contribuyentes/datos/76192083-9", body: juana, weight: 2, service: "misii_carta" },
  {
    name: "BHE resend",
    path: "/api/v1/sii/bhe/emitidas/email/222222220000041F99ED",
    body: { auth: { pass: { rut: "22222222-2", clave: "sandbox22" } }, destinatario: { email: "a@b.cl" } },
    weight: 2,
    service: "bhe_email_form",
  },
  {
    name: "BTE summary",
    path: "/api/v1/sii/bte/emitidas/resumen/2025",
    body: { auth: { pass: { rut: "76192083-9", clave: "sandbox76" } } },
    weight: 2,
    service: "bte_report",
  },
];

async function setup(plan = { daily_units: 1000, monthly_units: 10000 }) {
  const t = probeApp();
  const token = await tokenFor(t.deps, { plan });
  const post = (op: Operation, secret: string | null = token.secret) =>
    t.app.request(op.path, {
      method: "POST",
      headers: { "content-type": "application/json", ...(secret ? { "x-api-token": secret } : {}) },
      body: JSON.stringify(op.body),
    });
  const fault = (service: string, kind: FaultKind, count = 2) =>
    simulatorOf(t.deps.sii).state.faults.push({ service, fault: kind, remaining: count });
  return { post, fault };
}

describe.each(operations)("$name", (op) => {
  it("answers 401 without a token", async () => {
    const { post } = await setup();
    const res = await post(op, null);
    expect([res.status, (await errorOf(res)).error_code]).toEqual([401, "HTTP_401"]);
  });

  it("maps SII throttling to 429 SII_RATE_LIMIT with Retry-After", async () => {
    const { post, fault } = await setup();
    fault(op.service, "throttle");
    const res = await post(op);
    expect([res.status, (await errorOf(res)).error_code, res.headers.get("retry-after")]).toEqual([429, "SII_RATE_LIMIT", "60"]);
  });

  it("maps an SII failure to 502 SII_GATEWAY_ERROR with the SII's answer in details", async () => {
    const { post, fault } = await setup();
    fault(op.service, "http_5xx");
    const res = await post(op);
    const body = await errorOf(res);
    expect([res.status, body.error_code, body.details?.sii_status]).toEqual([502, "SII_GATEWAY_ERROR", 500]);
  });

  it("maps SII maintenance to 503 SII_UNAVAILABLE and charges nothing", async () => {
    const { post, fault } = await setup();
    fault(op.service, "maintenance");
    const res = await post(op);
    expect([res.status, (await errorOf(res)).error_code, res.headers.get("x-quota-units")]).toEqual([503, "SII_UNAVAILABLE", "0"]);
  });

  it(`charges ${op.weight} units and refuses with 429 QUOTA_EXCEEDED once the plan is used up`, async () => {
    const { post } = await setup({ daily_units: op.weight, monthly_units: 100 });
    const first = await post(op);
    expect([first.status, first.headers.get("x-quota-units")]).toEqual([200, String(op.weight)]);
    const second = await post(op);
    expect([second.status, (await errorOf(second)).error_code]).toEqual([429, "QUOTA_EXCEEDED"]);
    expect(Number(second.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
