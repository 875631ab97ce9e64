// Fuzzing every operation of /openapi.json: from a valid-looking request built
// from each operation's schemas, one part at a time is made hostile. Invariants: never a 500,
// always the error envelope with a code the document promises for that status, validation answers
// name the field, a rejected request costs no quota, and every answer carries the security headers.
// Each operation starts from a request the sandbox accepts (its credentials, signed XML, a CAF). FUZZ_RUNS sets the cases per operation
// (`npm run fuzz` runs many more), FUZZ_SEED replays a failure.
// The other direction: requests drawn valid from the same schemas are accepted, or refused only
// with a business error the document lists, never as malformed (FUZZ_VALID_RUNS cases each).
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { parseCertificateCredential } from "../../src/certificates/credentials.ts";
import { bytesToBase64 } from "../../src/lib/encoding.ts";
import { ErrorBody } from "../../src/platform/schemas.ts";
import { Granted } from "../../src/routes/caf/solicitar.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { SANDBOX_TAXPAYERS } from "../../src/sandbox/taxpayers.ts";
import { sandboxTransport, simulatorOf } from "../../src/sandbox/transport.ts";
import { answerOf, errorOf, valueAt } from "../support/answers.ts";
import { ADMIN, postJson, probeApp, tokenFor } from "../support/app.ts";
import { signedDte, signedEnvelope } from "../support/envelope.ts";
import {
  type Baseline,
  baselineOf,
  buildCase,
  caseArbitrary,
  checkAnswer,
  documentedCodes,
  errorKeys,
  type FuzzRequest,
  type Operation,
  operationsOf,
  plainRequest,
  toRequest,
  UNCHARGED,
  validArbitrary,
} from "../support/fuzz.ts";
import { validatorsFor } from "../support/openapi-schema.ts";

/** Cases per operation: bounded in `npm test`, many more under `npm run fuzz`. */
const RUNS = Number(process.env.FUZZ_RUNS ?? (process.env.npm_lifecycle_event === "fuzz" ? 1000 : 80));
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const plan = { daily_units: 10_000_000, monthly_units: 10_000_000 };

const { app: docApp } = probeApp();
const doc = await (await docApp.request("/openapi.json")).json();
// The harness's probe routes are test-only stand-ins and document no errors; the rest is the real API.
const operations = operationsOf(doc).filter((o) => !o.path.startsWith("/api/v1/test/"));

const juanaCert = { "cert-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].certPem, "pkey-data": SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem };
const COMPANY = "76192083-9";

/**
 * A gateway for one operation's cases. Its sandbox's appraisal workbooks are small: each year a case
 * names makes the gateway read that year's workbook anew, and what is fuzzed here (the request, not
 * the table's size) is the same over 500 rows as over 20 000 (test/node/vehiculos*.test.ts read larger ones).
 */
function fuzzApp() {
  const t = probeApp();
  t.deps.sii = sandboxTransport(createDefaultSandbox({ vehicleRows: 500 }));
  return t;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

/** An answer's JSON, if it is JSON: the fuzzer takes whatever comes back and checks it itself. */
async function jsonOf(res: Response): Promise<unknown> {
  if (!(res.headers.get("content-type") ?? "").includes("json")) return res.arrayBuffer().then(() => undefined);
  return res.json().catch(() => undefined);
}

/** The error envelope `body` is, if it is one. */
function refusalIn(body: unknown) {
  const parsed = ErrorBody.safeParse(body);
  return parsed.success ? parsed.data : undefined;
}

/**
 * The document's sample made a request the sandbox accepts, so mutations start from a valid
 * request and reach past validation: the sandbox's credentials for `auth`, signed XML where an
 * operation reads XML, and for documentos/generar a CAF the sandbox grants.
 */
async function validBaseline(operation: Operation, sample: Baseline, t: ReturnType<typeof probeApp>, secret: string): Promise<Baseline> {
  const base = structuredClone(sample);
  const body = base.body;
  if (!isObject(body)) return base;
  if (isObject(body.auth)) {
    if ("pass" in body.auth) body.auth = { pass: { rut: COMPANY, clave: "sandbox76" } };
    else if ("cert" in body.auth) body.auth = { cert: juanaCert };
  }
  const juana = () => parseCertificateCredential(juanaCert, new Date());
  const invoice = { tipo: 33, folio: 7, receptor: "22222222-2", total: 100 };
  if (/\/(envios\/verificar|documentos\/pdf|documentos\/escpos|formatos\/json)$/.test(operation.path) && "xml" in body)
    body.xml = bytesToBase64(new TextEncoder().encode(await signedDte(await juana(), COMPANY, invoice)));
  if (operation.path.endsWith("/envios/enviar"))
    body.xml = bytesToBase64(await signedEnvelope(await juana(), COMPANY, [{ ...invoice, folio: 11 }]));
  if (operation.path.endsWith("/documentos/generar")) {
    const res = await postJson(t.app, secret, `/api/v1/sii/dte/caf/solicitar/${COMPANY}/33/1`, { auth: { cert: juanaCert } });
    const { data } = await answerOf(res, Granted);
    body.caf = data.caf_xml;
    const idDoc = valueAt(body.dte, "Encabezado", "IdDoc");
    if (!isObject(idDoc)) throw new Error("the generar sample has no dte.Encabezado.IdDoc");
    idDoc.Folio = data.folio_inicial;
  }
  if (operation.path.endsWith("/vehiculos/tasacion/buscar")) Object.assign(body, { categoria: 1, tipo: 1 });
  return base;
}

/** Answers by status over the whole run: the figures for the closing note. */
const statuses = new Map<number, number>();

/** Each operation's unchanged request: whether it passed validation, and its status (reported at the end). */
const baselines = new Map<string, { valid: boolean; status: number }>();

// known: cases found by fuzzing whose fix belongs to code other developers are editing now.
const KNOWN: { operationId: string; why: string; matches: (problem: string) => boolean }[] = [];

async function fuzzOperation(operation: Operation) {
  const t = fuzzApp();
  const { secret, id } = await tokenFor(t.deps, { plan, scopes: ["sii:read", "sii:write", "settings:read", "settings:write"] });
  const credentials: [string, string][] =
    operation.auth === "api" ? [["x-api-token", secret]] : operation.auth === "admin" ? [["authorization", `Bearer ${ADMIN}`]] : [];
  const base = await validBaseline(operation, baselineOf(doc, operation), t, secret);
  const used = async () => (await t.deps.quota.peek(id, plan, t.deps.clock.now())).daily.used;
  const sandbox = simulatorOf(t.deps.sii);
  const siiCalls = () => [...sandbox.state.calls.values()].reduce((sum, n) => sum + n, 0);
  const plain = await t.app.request(toRequest("http://gateway.test", plainRequest(operation, base, credentials)));
  const plainBody = await plain.json().catch(() => undefined);
  const baselineErrors = errorKeys(plainBody);
  const baselineMessage = valueAt(plainBody, "message");
  baselines.set(`${operation.method} ${operation.path}`, {
    valid: refusalIn(plainBody)?.error_code !== "VALIDATION_ERROR",
    status: plain.status,
  });

  await fc.assert(
    fc.asyncProperty(caseArbitrary, async (c) => {
      const { request, mutation } = buildCase(operation, base, c, credentials);
      const before = await used();
      const callsBefore = siiCalls();
      const res = await t.app.request(toRequest("http://gateway.test", request));
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const type = res.headers.get("content-type") ?? "";
      const body = await jsonOf(res);
      const problems = checkAnswer(
        operation,
        mutation,
        res.status,
        type,
        body,
        baselineErrors,
        typeof baselineMessage === "string" ? baselineMessage : undefined,
      );
      // Item 7 on every answer of every operation, the binary ones (PDF, ESC/POS) included.
      if (res.headers.get("x-content-type-options") !== "nosniff") problems.push("no X-Content-Type-Options: nosniff");
      if (request.path.startsWith("/api/") && res.headers.get("cache-control") !== "no-store") problems.push("no Cache-Control: no-store");
      if (res.headers.has("server") || res.headers.has("x-powered-by")) problems.push("a server banner");
      // A refusal after the SII was called is charged (the SII did the work); before it, never.
      if (res.status >= 400 && UNCHARGED.has(refusalIn(body)?.error_code ?? "") && siiCalls() === callsBefore && (await used()) !== before)
        problems.push("a request rejected before the SII consumed quota");
      const known = problems.filter((p) => KNOWN.some((k) => k.operationId === operation.operationId && k.matches(p)));
      const open = problems.filter((p) => !known.includes(p));
      if (open.length > 0) {
        const shown = { ...request, body: request.body?.slice(0, 300), headers: request.headers.map(([k, v]) => [k, v.slice(0, 60)]) };
        throw new Error(
          `${operation.method} ${operation.path}: ${open.join("; ")}\n  seed ${SEED} (FUZZ_SEED=${SEED} replays)\n  mutation ${JSON.stringify(mutation)?.slice(0, 300)}\n  request ${JSON.stringify(shown)}\n  answer ${res.status} ${JSON.stringify(body)?.slice(0, 600)}`,
        );
      }
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
}

afterAll(() => {
  const total = [...statuses.values()].reduce((a, b) => a + b, 0);
  const clean = [...baselines.values()].filter((b) => b.valid).length;
  const succeed = [...baselines.values()].filter((b) => b.status < 300).length;
  const byStatus = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}:${n}`);
  const refused = [...baselines].filter(([, b]) => b.status >= 300).map(([name, b]) => `${b.status} ${name}`);
  console.log(
    `fuzz: ${total} cases over ${operations.length} operations (seed ${SEED}); baselines: ${clean} pass validation, ${succeed} succeed; answers ${byStatus.join(" ")}\n  unchanged requests not answered 2xx: ${refused.join("; ")}`,
  );
});

describe(`fuzzing ${operations.length} operations of /openapi.json, ${RUNS} cases each (seed ${SEED})`, () => {
  it("covers every operation of the document", () => {
    expect(operations.length).toBeGreaterThan(40);
    expect(operations.map((o) => o.operationId)).toContain("post_sii_dte_caf_solicitar");
  });

  it("a body sent as anything but JSON is 415, documented, naming the content-type header, and costs nothing", async () => {
    const t = probeApp();
    const { secret } = await tokenFor(t.deps, { plan });
    const withBody = operations.filter((o) => o.bodySchema && o.auth === "api");
    expect(withBody.length).toBeGreaterThan(20);
    for (const operation of withBody) {
      expect(Object.keys(operation.op.responses), operation.path).toContain("415");
      const request = plainRequest(operation, baselineOf(doc, operation), [["x-api-token", secret]]);
      request.headers = request.headers.map(([k, v]) => (k === "content-type" ? [k, "text/plain"] : [k, v]));
      const res = await t.app.request(toRequest("http://gateway.test", request));
      const body = await errorOf(res);
      expect([res.status, body.error_code, body.errors?.[0]?.path, res.headers.get("x-quota-units")], operation.path).toEqual([
        415,
        "HTTP_415",
        "content-type",
        "0",
      ]);
    }
  });

  // The suite's timeout (a minute) is for a hang: a busy machine may take several times the usual seconds.
  it.each(operations.map((o) => [`${o.method} ${o.path}`, o] as const))("%s", async (_name, operation) => {
    await fuzzOperation(operation);
  });
});

describe("fuzzing is reproducible", () => {
  it("a seed draws the same cases, hence the same requests, every time; another seed draws others", () => {
    const operation = operations.find((o) => o.bodySchema && o.auth === "api") as Operation;
    const base = baselineOf(doc, operation);
    const draw = (seed: number) =>
      fc.sample(caseArbitrary, { seed, numRuns: 50 }).map((c) => buildCase(operation, base, c, [["x-api-token", "t"]]));
    expect(draw(SEED)).toEqual(draw(SEED));
    expect(draw(SEED + 1)).not.toEqual(draw(SEED));
  });
});

// ---- The positive direction: requests the document calls valid are accepted, or refused only
// with a business error the document lists; never a 422 nor a 400 naming a field's shape. ----

/** Valid cases per operation: bounded in `npm test`, more under `npm run fuzz`. */
const VALID_RUNS = Number(process.env.FUZZ_VALID_RUNS ?? Math.max(10, Math.round(RUNS / 4)));
const validators = validatorsFor(doc);
const SANDBOX_RUTS = SANDBOX_TAXPAYERS.map((t) => t.rut);

/**
 * Fields whose validity no JSON Schema can state (taxpayer credentials that must log in, signed
 * XML, a CAF the SII granted): a valid request takes them from the baseline the sandbox accepts.
 */
const OPAQUE = ["auth", "xml", "caf"];

/**
 * Refusals of schema-valid requests that are business rules no JSON Schema can state (they depend on
 * the taxpayer, the date, or two fields together): the document lists them as 400s.
 */
const BUSINESS_RULES: { operationId: RegExp; why: string; matches: RegExp }[] = [
  {
    operationId: /sandbox_(replays|faults)_add/,
    why: "service must be one the simulator lists, or for a fault an SII host (its names are the simulator's, not the document's)",
    matches: /body:service must be a service of the simulator/,
  },
  {
    operationId: /sandbox_replays_add/,
    why: "a body only with a status that has one, a header name once whatever its case (fields together)",
    matches: /must be empty with status 204, 205, 304|a header name is given twice/,
  },
  {
    operationId: /caf_solicitar/,
    why: "cantidad above the SII's MAX_AUTOR for this taxpayer and type",
    matches: /path:cantidad at most \d+ \(the SII's MAX_AUTOR/,
  },
  {
    operationId: /caf_anular/,
    why: "folio_inicial after folio_final (two fields together)",
    matches: /path:folio_inicial \d+ is greater than folio_final/,
  },
  {
    operationId: /rcv_/,
    why: "a month after the current one (depends on the date)",
    matches: /path:periodo must be a month from 201705 to \d{6}$/,
  },
  {
    operationId: /^post_jobs$/,
    why: "an RCV download of a month after the current one (depends on the date)",
    matches: /body:rcv\.periodo must be a month from 201705 to \d{6}$/,
  },
  {
    operationId: /rcv_ventas_set_/,
    why: "monto_total is the sum of the other amounts (fields together)",
    matches: /monto_total must be monto_exento \+ monto_neto \+ monto_iva/,
  },
  {
    operationId: /rcv_ventas_set_boletas_diarias/,
    why: "a day's folio_final not below its folio_inicial (fields together)",
    matches: /folio_final must not be lower than folio_inicial/,
  },
  {
    operationId: /vehiculos_tasacion_buscar/,
    why: "a tipo the year's catalogue does not list (depends on the SII's data)",
    matches: /body:tipo see GET \/api\/v1\/sii\/vehiculos\/categorias\/tipos\//,
  },
  {
    operationId: /documentos_pdf|documentos_escpos/,
    why: "the logo's bytes must be a JPEG or PNG image (its content, not its shape)",
    // Every refusal of the logo but its encoding: which image, damaged, no frame header, …
    matches: /body:logo (?!is not base64)/,
  },
  {
    operationId: /documentos_pdf/,
    why: "the SII office comes from the request, else from taxpayer data the gateway would hold (none today): optional in the contract, its absence a 400 naming it (issue 35)",
    matches: /body:oficina_sii is required: the printout shows the issuer's SII office/,
  },
  {
    operationId: /documentos_generar/,
    why: "the document's content past the fields the schema names follows the SII's DTE rules (DTE_v10.xsd, the engine's checks per type), and the CAFs must cover its type, issuer and folios: checked by the engine, a 400 naming the field",
    matches: /body:(caf|dte(\[\d+\])?\.)/,
  },
  {
    operationId: /formatos_json/,
    why: "amounts the normalizer computes from several fields (quantity × price, a discount larger than the line, the lines' sum, IVA on the net) within the SII's range, and a type's narrower range (a boleta's): a 400 naming the fields",
    matches: /body:dte\.\S+ (computed from |makes the line's amount|the lines' MontoItem add up|-?[\d.e+-]+ is outside the SII's range)/,
  },
  {
    operationId: /formatos_json/,
    why: "a guía (or an invoice that ships goods) dated from 2026-11-01 carries its transfer data (Res. Ex. SII 154/2025; fields together and the date): a 400 naming each missing field",
    matches:
      /body:dte\.\S+ (is required in|is for guías de despacho \(52\) only|.* is not a (valid RUT|kind of transfer)).*Res\. Ex\. SII 154\/2025/,
  },
  {
    operationId: /post_platform_dte_folios$/,
    why: "the CAF must be an authentic file granted to the path's issuer for its type (its content and two fields together): a 400 naming the field",
    matches: /body:caf\b/,
  },
  {
    operationId: /indicadores_uf_anual/,
    why: "a day its month does not have (the calendar: three fields together)",
    matches: /path:dia month \d+ of \d+ has no day \d+/,
  },
  {
    operationId: /(post|patch)_webhooks_endpoints$/,
    why: "the URL must be one the gateway delivers to: absolute, https (http to loopback in sandbox mode), no user or fragment, to an allowed address (the address policy, also on what the name resolves to): a 400 naming url",
    matches: /body:url /,
  },
  {
    operationId: /put_settings_proxy/,
    why: "a host that is no valid name or IP address (an IPv6 literal's full grammar, beyond a pattern)",
    matches: /body:url has a host that is no valid name or IP address/,
  },
];

/** One known finding: the operation, why it happens and who fixes it, and how to recognise it. */
interface KnownFinding {
  operationId: string;
  why: string;
  matches: RegExp;
}

// Findings of the positive direction not fixed yet, each with why; each must still reproduce.
const KNOWN_VALID: KnownFinding[] = [
  {
    operationId: "post_platform_dte_documentos_pdf",
    why: "logo's pattern admits text the base64 reader refuses (`/9gZrefv=` amid tabs and \\v: 9 characters, padded) (strict-b)",
    matches: /body:logo is not base64/,
  },
];

/** The problems of one answer to a request the document calls valid. */
function validAnswerProblems(operation: Operation, status: number, contentType: string, body: unknown): string[] {
  const problems: string[] = [];
  const refusal = refusalIn(body);
  if (status === 422) problems.push(`422 ${refusal?.error_code}: a schema-valid request refused as malformed`);
  else if (status >= 500 && status !== 502 && status !== 503) problems.push(`status ${status}`);
  if (status < 400) {
    if (contentType.includes("application/json")) {
      const check = validators.forOperation(operation.operationId).response(status, body);
      if (!check.valid) problems.push(`answer ${status} outside its documented schema: ${check.text}`);
    }
    return problems;
  }
  if (status === 422) return problems;
  const code = refusal?.error_code;
  const documented = [...documentedCodes(operation, status), ...(operation.auth === "api" ? [] : ["VALIDATION_ERROR", "HTTP_404"])];
  if (code === undefined || !documented.includes(code))
    problems.push(`${status} ${code} is not documented for this status (documented: ${documented.join(", ") || "none"})`);
  const fieldErrors = refusal?.errors ?? [];
  if (code === "VALIDATION_ERROR" && fieldErrors.length > 0)
    problems.push(
      `${status} VALIDATION_ERROR about the shape: ${fieldErrors.map((e) => `${e.location}:${e.path} ${e.message}`).join("; ")}`,
    );
  return problems;
}

let signedXml: string | undefined;
/** A signed invoice in base64, for an `xml` field the baseline did not fill (a one-of's other branch). */
async function signedXmlBase64(): Promise<string> {
  signedXml ??= bytesToBase64(
    new TextEncoder().encode(
      await signedDte(await parseCertificateCredential(juanaCert, new Date()), COMPANY, {
        tipo: 33,
        folio: 7,
        receptor: "22222222-2",
        total: 100,
      }),
    ),
  );
  return signedXml;
}

async function fuzzValid(operation: Operation) {
  const t = fuzzApp();
  const { secret } = await tokenFor(t.deps, { plan, scopes: ["sii:read", "sii:write", "settings:read", "settings:write"] });
  const credentials: [string, string][] =
    operation.auth === "api" ? [["x-api-token", secret]] : operation.auth === "admin" ? [["authorization", `Bearer ${ADMIN}`]] : [];
  const base = await validBaseline(operation, baselineOf(doc, operation), t, secret);
  const ov = validators.forOperation(operation.operationId);
  const options = { ruts: SANDBOX_RUTS };
  const paramArbs: Record<string, fc.Arbitrary<unknown>> = {};
  const queryArbs: Record<string, fc.Arbitrary<unknown>> = {};
  for (const p of operation.params) (p.in === "path" ? paramArbs : queryArbs)[p.name] = validArbitrary(doc, p.schema, options);
  const arbitrary = fc.record({
    params: fc.record(paramArbs),
    query: fc.record(queryArbs, { requiredKeys: operation.params.filter((p) => p.in === "query" && p.required).map((p) => p.name) }),
    body: operation.bodySchema ? validArbitrary(doc, operation.bodySchema, options) : fc.constant(undefined),
  });
  const seen = new Set<string>();
  const findings: string[] = [];
  await fc
    .assert(
      fc.asyncProperty(arbitrary, async (drawn) => {
        const body = drawn.body as Record<string, unknown> | undefined;
        const baseBody = base.body as Record<string, unknown> | undefined;
        if (body && typeof body === "object" && baseBody && typeof baseBody === "object") {
          for (const key of OPAQUE) if (key in body && key in baseBody) body[key] = structuredClone(baseBody[key]);
        }
        const params = Object.fromEntries(Object.entries(drawn.params).map(([k, v]) => [k, String(v)]));
        const query = Object.fromEntries(Object.entries(drawn.query).map(([k, v]) => [k, String(v)]));
        if (body && typeof body === "object" && "xml" in body && !(baseBody && "xml" in baseBody)) body.xml = await signedXmlBase64();
        // Only requests the document's own validator accepts count.
        let valid: boolean;
        try {
          valid = ov.parameters({ path: params, query }).valid && (body === undefined || ov.body(body).valid);
        } catch (error) {
          const problem = `the document's schema cannot be compiled: ${(error as Error).message}`;
          const known = KNOWN_VALID.find((k) => k.operationId === operation.operationId && k.matches.test(problem));
          if (known) {
            seen.add(known.why);
            return true;
          }
          findings.push(`${operation.method} ${operation.path}: ${problem}`);
          return false;
        }
        fc.pre(valid);
        let path = operation.path;
        for (const [name, v] of Object.entries(params)) path = path.replace(`{${name}}`, encodeURIComponent(v));
        const headers: [string, string][] = [...credentials];
        if (body !== undefined) headers.push(["content-type", "application/json"]);
        const request: FuzzRequest = {
          method: operation.method,
          path,
          query,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
        };
        const res = await t.app.request(toRequest("http://gateway.test", request));
        const type = res.headers.get("content-type") ?? "";
        const answer = await jsonOf(res);
        const problems = validAnswerProblems(operation, res.status, type, answer);
        for (const p of problems) {
          if (BUSINESS_RULES.some((r) => r.operationId.test(operation.operationId) && r.matches.test(p))) continue;
          const known = KNOWN_VALID.find((k) => k.operationId === operation.operationId && k.matches.test(p));
          if (known) seen.add(known.why);
          else
            findings.push(
              `${operation.method} ${operation.path}: ${p}\n  seed ${SEED}\n  request ${JSON.stringify({ path, query, body: request.body?.slice(0, 400) })}\n  answer ${res.status} ${JSON.stringify(answer)?.slice(0, 400)}`,
            );
        }
        return findings.length === 0;
      }),
      { numRuns: VALID_RUNS, seed: SEED, endOnFailure: true },
    )
    .catch((error) => {
      if (findings.length === 0) throw error;
    });
  expect(findings).toEqual([]);
  for (const k of KNOWN_VALID.filter((k) => k.operationId === operation.operationId))
    expect(seen.has(k.why), `KNOWN entry no longer reproduces, remove it: ${k.why}`).toBe(true);
}

describe(`valid requests for ${operations.length} operations of /openapi.json, ${VALID_RUNS} cases each (seed ${SEED})`, () => {
  // Valid requests reach the work itself (workbooks read, documents signed): slower than refusals, within the suite's minute.
  it.each(operations.map((o) => [o.operationId, o] as const))("%s", async (_name, operation) => fuzzValid(operation));
});
