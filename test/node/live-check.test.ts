import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { classify, replayFile, SAVED_RESULTS } from "../../scripts/live-check-report.ts";
import { createApp } from "../../src/app.ts";
import { base64ToBytes } from "../../src/lib/encoding.ts";
import { decodeLatin1, encodeLatin1 } from "../../src/lib/latin1.ts";
import { createDefaultSandbox } from "../../src/sandbox/index.ts";
import { SANDBOX_TAXPAYERS } from "../../src/sandbox/taxpayers.ts";
import { simulatorOf } from "../../src/sandbox/transport.ts";
import { formatChanged } from "../../src/sii/format-changed.ts";
import { redactSiiAnswer } from "../../src/sii/redact.ts";
import { liveTransport } from "../../src/sii/transport.ts";
import { errorOf } from "../support/answers.ts";
import { postJson, secretIn, testDeps, tokenFor } from "../support/app.ts";

const ROOT = join(import.meta.dirname, "..", "..");
// The scripts run on Node 22 (type stripping): the project's own copy when the runner is older.
const LOCAL_NODE = join(ROOT, "node_modules", ".bin", "node");
const NODE = Number(process.versions.node.split(".")[0]) >= 22 || !existsSync(LOCAL_NODE) ? process.execPath : LOCAL_NODE;
const CREDENTIALS = join(ROOT, "src", "sandbox", "credentials", "11111111-1");
const COMPANY = SANDBOX_TAXPAYERS.find((t) => t.rut === "76192083-9");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** result and detail by operation id, from the table. */
  rows: Map<string, { result: string; detail: string }>;
}

const SANDBOX_LOGIN = [
  "--rut",
  "76192083-9",
  "--clave",
  COMPANY?.clave ?? "",
  "--cert",
  join(CREDENTIALS, "cert.pem"),
  "--key",
  join(CREDENTIALS, "key.pem"),
];

function liveCheck(args: string[], base = SANDBOX_LOGIN): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      NODE,
      [
        "--experimental-strip-types",
        "--no-warnings=ExperimentalWarning",
        join(ROOT, "scripts", "live-check.ts"),
        "--sandbox",
        ...base,
        ...args,
      ],
      { cwd: ROOT, timeout: 90_000, env: { ...process.env, SII_UPSTREAM: "" } },
      (error, stdout, stderr) => {
        const rows = new Map<string, { result: string; detail: string }>();
        for (const line of stdout.split("\n")) {
          const m = /^(\w+)\s{2,}(works|refused by the SII|could not be read|read, but implausible|skipped|gateway error)\s{2,}(.*)$/.exec(
            line,
          );
          if (m?.[1] && m[2]) rows.set(m[1], { result: m[2], detail: m[3] ?? "" });
        }
        resolve({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr, rows });
      },
    );
  });
}

/** The read-only operations of the OpenAPI document, by operation id. */
async function readOperations(): Promise<string[]> {
  const { deps } = testDeps();
  const doc = (await (await createApp(() => deps).request("/openapi.json")).json()) as {
    paths: Record<string, Record<string, { operationId: string; "x-scope"?: string }>>;
  };
  // The reads of the SII's data; the gateway's jobs and feed (/api/v1/jobs, /api/v1/events) are its own state.
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.values(item)
      .filter((op) => op["x-scope"] === "sii:read" && /^\/api\/v1\/(sii|platform)\//.test(path))
      .map((op) => op.operationId),
  );
}

/** Operations the sandbox cannot answer with data, and why (the check says so, it does not fail). */
const NOT_WORKING_IN_SANDBOX: Record<string, string[]> = {
  // Computed by the gateway or needing the user's own documents: not called.
  post_platform_dte_formatos_json: ["skipped"],
  post_platform_dte_documentos_escpos: ["skipped"],
  post_platform_dte_documentos_pdf: ["skipped"],
  post_platform_dte_envios_verificar: ["skipped"],
  post_platform_dte_envios_estado: ["skipped"],
  get_platform_dte_folios: ["skipped"],
  // The sandbox's registers are not submissions it received, and its company is not in certification.
  post_platform_dte_intercambios_cesion: ["refused by the SII"],
  post_platform_dte_intercambios_eventos: ["refused by the SII"],
  post_platform_dte_intercambios_recepcion_sii: ["refused by the SII"],
  // Not in the certification process: the SII refuses, or shows a page without the progress form.
  post_sii_certificacion_postulacion_avance: ["refused by the SII", "could not be read"],
};

describe.concurrent("npm run live-check against the sandbox", () => {
  it("calls every read-only operation once and says each works", async () => {
    const run = await liveCheck(["--out", join(tmpdir(), "live-check-unused")]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const operations = await readOperations();
    expect(operations.length).toBeGreaterThan(20);
    for (const id of operations) {
      const row = run.rows.get(id);
      expect(row, `${id} is listed`).toBeDefined();
      expect(NOT_WORKING_IN_SANDBOX[id] ?? ["works"], `${id}: ${row?.detail}`).toContain(row?.result);
    }
    expect(run.stdout).toMatch(
      /summary: \d+ works, \d+ refused by the SII, \d+ could not be read, 0 read but implausible, 0 gateway errors, 6 skipped/,
    );
    // docs/live-check.md shows this output: its header and summary lines are the ones printed here.
    const page = readFileSync(join(ROOT, "docs", "live-check.md"), "utf8");
    for (const line of run.stdout.split("\n").filter((l) => /^(SII live check for|operation |summary: )/.test(l))) {
      expect(page, "docs/live-check.md's example").toContain(line.trimEnd());
    }
    // ...right after the command that prints it, this run's: the sandbox's company with the files given here.
    const cert = (file: string) => `src/sandbox/credentials/11111111-1/${file}`;
    const command = `npm run live-check -- --sandbox --rut 76192083-9 --clave ${COMPANY?.clave} \\\n  --cert ${cert("cert.pem")} --key ${cert("key.pem")}`;
    expect(page).toContain(`${command}\n\`\`\`\n\n\`\`\`\nSII live check for`);
  }, 120_000);

  it("stops using a clave the SII refused, so repeated failures cannot lock it", async () => {
    const run = await liveCheck(["--out", join(tmpdir(), "live-check-unused")], ["--rut", "76192083-9", "--clave", "not-the-clave"]);
    expect(run.code).toBe(0);
    const refused = [...run.rows].filter(([, row]) => row.detail.includes("AUTH_ERROR"));
    expect(refused.map(([id]) => id)).toEqual(["post_sii_bte_emitidas_resumen"]);
    expect(run.rows.get("post_sii_rcv_compras_resumen")?.detail).toMatch(/refused the clave once/);
    expect(run.rows.get("get_sii_indicadores_uf_anual")?.result).toBe("works");
  }, 120_000);

  it("saves the answers it could not read, redacted, as replays that --replay and POST /sandbox/v1/replays take as they are", async () => {
    const out = mkdtempSync(join(tmpdir(), "live-check-"));
    const again = mkdtempSync(join(tmpdir(), "live-check-replayed-"));
    try {
      const run = await liveCheck(["--out", out, "--strict", "--sandbox-fault", "indicadores:html", "--sandbox-fault", "bte_report:html"]);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(1);
      for (const id of ["get_sii_indicadores_uf_anual", "post_sii_bte_emitidas_resumen"]) {
        const row = run.rows.get(id);
        expect(row?.result, id).toBe("could not be read");
        const file = join(out, `${id}.txt`);
        expect(row?.detail).toContain(`${id}.txt`);
        const report = readFileSync(file, "utf8");
        expect(report).toContain("Servicio no disponible");
        expect(report).toContain("502 SII_GATEWAY_ERROR");
        expect(secretIn(report)).toBeUndefined();
        expect(report).not.toContain(COMPANY?.clave);
      }
      // Faults hit one call each: the other indicators still work.
      expect(run.rows.get("get_sii_indicadores_correccion_monetaria_anual")?.result).toBe("works");

      // Each saved answer is a body of POST /sandbox/v1/replays, nothing more, with no secret in it.
      const services = { get_sii_indicadores_uf_anual: "indicadores", post_sii_bte_emitidas_resumen: "bte_report" };
      for (const [id, service] of Object.entries(services)) {
        expect(run.rows.get(id)?.detail).toContain(`${id}.json`);
        const text = readFileSync(join(out, `${id}.json`), "utf8");
        const replay = JSON.parse(text);
        expect(Object.keys(replay).sort()).toEqual(["body", "count", "headers", "service", "status"]);
        expect(replay).toMatchObject({ service, status: 200, count: 1, headers: { "content-type": "text/html; charset=ISO-8859-1" } });
        expect(Object.keys(replay.headers)).toEqual(["content-type"]);
        const page = decodeLatin1(base64ToBytes(replay.body));
        expect(page).toContain("Servicio no disponible");
        for (const form of [text, page]) {
          expect(secretIn(form)).toBeUndefined();
          expect(form).not.toContain(COMPANY?.clave);
        }
      }

      // Posted by hand, the gateway reads the same answer the same way.
      const { deps } = testDeps();
      const app = createApp(() => deps);
      const posted = await app.request("/sandbox/v1/replays", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: readFileSync(join(out, "get_sii_indicadores_uf_anual.json"), "utf8"),
      });
      expect(posted.status).toBe(200);
      const { secret } = await tokenFor(deps, { scopes: ["sii:read"] });
      const res = await app.request(`/api/v1/sii/indicadores/uf/anual/${new Date().getFullYear()}/1/1`, {
        headers: { "x-api-token": secret },
      });
      expect(res.status).toBe(502);
      expect((await errorOf(res)).message).toMatch(/is not the yearly table it should be/);

      // --replay: no fault asked for, no credentials given; the saved answers alone reproduce both failures.
      const replayed = await liveCheck(["--replay", out, "--out", again, "--strict"], []);
      expect(replayed.stderr).toBe("");
      expect(replayed.stdout).toContain("built-in sandbox replaying 2 saved answer(s)");
      expect(replayed.code).toBe(1);
      for (const id of Object.keys(services)) expect(replayed.rows.get(id)?.result, id).toBe("could not be read");
      expect(replayed.rows.get("get_sii_indicadores_correccion_monetaria_anual")?.result).toBe("works");
      expect(replayed.rows.get("post_sii_rcv_compras_resumen")?.result).toBe("works");
    } finally {
      rmSync(out, { recursive: true, force: true });
      rmSync(again, { recursive: true, force: true });
    }
  }, 180_000);

  it("refuses a --replay folder with a file no operation is named by, or an answer the sandbox does not take", async () => {
    const dir = mkdtempSync(join(tmpdir(), "live-check-bad-replay-"));
    try {
      writeFileSync(
        join(dir, "get_sii_no_such_operation.json"),
        JSON.stringify({ service: "indicadores", status: 200, body: "", count: 1 }),
      );
      const unknown = await liveCheck(["--replay", dir], []);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain("get_sii_no_such_operation.json");
      rmSync(join(dir, "get_sii_no_such_operation.json"));
      writeFileSync(join(dir, "get_sii_indicadores_uf_anual.json"), JSON.stringify({ service: "uf", status: 200, body: "", count: 1 }));
      const refused = await liveCheck(["--replay", dir], []);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/get_sii_indicadores_uf_anual\.json: .*service: must be a service of the simulator: .*indicadores/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

const CLAVE = "Canary-Clave-7Xq";
const THIRD_PARTY = "12345678-K";

/** A live-mode app whose "SII" answers every request with a page no client can read. */
function liveAppAnswering(page: string) {
  const requests: string[] = [];
  const stub: typeof fetch = async (input) => {
    requests.push(new Request(input).url);
    return new Response(page, { status: 200, headers: { "content-type": "text/html; charset=ISO-8859-1" } });
  };
  const { deps } = testDeps(undefined, { upstream: "live" });
  deps.sii = liveTransport(stub);
  return { app: createApp(() => deps), deps, requests };
}

describe("live mode: a 502 about an unreadable SII answer carries a redacted excerpt", () => {
  it("quotes the answer with the caller's clave, session cookies and third parties hidden", async () => {
    const garbage = [
      "<html><body><p>Error inesperado en el sistema</p>",
      `<form><input type="hidden" name="clave" value="${CLAVE}"><input name="x" value="${encodeURIComponent(CLAVE)}"></form>`,
      `<p>Se ingreso ${CLAVE} para ${THIRD_PARTY}, RUT 76192083-9, clave en base64 ${btoa(CLAVE)}</p>`,
      "</body></html>",
    ].join("");
    const { app, deps } = liveAppAnswering(garbage);
    const { secret } = await tokenFor(deps);
    const res = await postJson(app, secret, "/api/v1/sii/bte/emitidas/resumen/2025", {
      auth: { pass: { rut: "76192083-9", clave: CLAVE } },
    });
    expect(res.status).toBe(502);
    const body = await errorOf(res);
    expect(body.error_code).toBe("SII_GATEWAY_ERROR");
    const excerpt = body.details?.sii_excerpt;
    if (typeof excerpt !== "string") throw new Error(`details.sii_excerpt is not text: ${JSON.stringify(body.details)}`);
    expect(excerpt).toContain("Error inesperado en el sistema");
    expect(excerpt.length).toBeLessThanOrEqual(500);
    expect(excerpt).toContain("12345678-?");
    expect(excerpt).toContain("76192083-9");
    // No form of the clave survives anywhere in the answer.
    const text = JSON.stringify(body);
    for (const form of [CLAVE, encodeURIComponent(CLAVE), btoa(CLAVE), "Canary"]) expect(text).not.toContain(form);
  });

  it("adds nothing when the SII gave no answer (the call failed before one arrived)", async () => {
    const { deps } = testDeps(undefined, { upstream: "live" });
    deps.sii = liveTransport(async () => {
      throw new TypeError("fetch failed");
    });
    const app = createApp(() => deps);
    const res = await app.request("/api/v1/sii/indicadores/uf/anual/2025/3/15", {
      headers: { "x-api-token": (await tokenFor(deps)).secret },
    });
    expect(res.status).toBe(502);
    const body = await errorOf(res);
    expect(body.details?.reason).toContain("fetch failed");
    expect(body.details?.sii_excerpt).toBeUndefined();
  });

  it("adds nothing in sandbox mode", async () => {
    const { deps } = testDeps();
    const app = createApp(() => deps);
    const { secret } = await tokenFor(deps);
    await app.request("/sandbox/v1/faults", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ service: "bte_report", fault: "html" }),
    });
    const res = await postJson(app, secret, "/api/v1/sii/bte/emitidas/resumen/2025", {
      auth: { pass: { rut: "76192083-9", clave: "sandbox76" } },
    });
    expect(res.status).toBe(502);
    const body = await errorOf(res);
    expect(body.details).toBeDefined();
    expect(body.details?.sii_excerpt).toBeUndefined();
  });
});

describe("live-check's judgement and saved answers", () => {
  const redact = (text: string) => redactSiiAnswer(text, { secrets: [CLAVE], ownRuts: ["76192083-9"] });

  it("reports an SII_FORMAT_CHANGED answer as read, but implausible, naming the service and the failed check", () => {
    const err = formatChanged("bte_report", "the totals row is not the sum of its rows (January)", "<tr><td>1.000</td></tr>");
    const answer = { status: err.status, body: { success: false, error_code: err.code, message: err.message, details: err.init.details } };
    const { result, detail } = classify(answer, redact);
    expect(result).toBe("read, but implausible");
    expect(detail).toBe("502 SII_FORMAT_CHANGED: bte_report: the totals row is not the sum of its rows (January)");
    expect(SAVED_RESULTS).toContain(result);
    // The other kinds keep their meaning.
    const unreadable = { status: 502, body: { error_code: "SII_GATEWAY_ERROR", message: "The SII's page could not be read", details: {} } };
    expect(classify(unreadable, redact).result).toBe("could not be read");
    expect(classify({ status: 200, body: {} }, redact).result).toBe("works");
  });

  it("saves the answer in the replay form, without clave, cookie, token or key, in the encoding it came in", async () => {
    const key = readFileSync(join(CREDENTIALS, "key.pem"), "utf8");
    const page = [
      "<html><body><p>Año tributario: boletas emitidas</p>",
      `<input type="hidden" name="clave" value="${CLAVE}"><script>document.cookie="TOKEN=Q1W2E3R4T5Y6U7I8O9P0; CSESSIONID=abc123XYZ789"</script>`,
      `<pre>${key}</pre><p>Se ingreso ${CLAVE}</p></body></html>`,
    ].join("");
    const copy = {
      method: "POST",
      url: "https://zeus.sii.cl/cvc_cgi/bte/bte_indiv_cons2",
      status: 200,
      contentType: "text/html; charset=ISO-8859-1",
      bytes: encodeLatin1(page),
      cut: false,
    };
    const replay = replayFile(copy, "bte_report", redact);
    expect(replay).toEqual({
      service: "bte_report",
      status: 200,
      headers: { "content-type": "text/html; charset=ISO-8859-1" },
      body: expect.any(String),
      count: 1,
    });
    const bytes = base64ToBytes(replay.body);
    // latin1 in, latin1 out: "Año" is one byte 0xF1, not UTF-8's two.
    expect([...bytes].filter((b) => b === 0xf1)).toHaveLength(1);
    const saved = decodeLatin1(bytes);
    expect(saved).toContain("Año tributario");
    for (const secret of [CLAVE, "Q1W2E3R4T5Y6U7I8O9P0", "abc123XYZ789", key.split("\n")[1] ?? "", "PRIVATE KEY"]) {
      expect(saved).not.toContain(secret);
      expect(JSON.stringify(replay)).not.toContain(secret);
    }
    expect(secretIn(saved)).toBeUndefined();

    // The file is a body the sandbox takes as it is, and its bytes are what the service answers.
    const { deps } = testDeps();
    const app = createApp(() => deps);
    const res = await app.request("/sandbox/v1/replays", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(replay),
    });
    expect(res.status).toBe(200);
    const answered = await simulatorOf(deps.sii).fetch(new Request(copy.url, { method: "POST", body: "" }));
    expect(answered.headers.get("content-type")).toBe("text/html; charset=ISO-8859-1");
    expect(new Uint8Array(await answered.arrayBuffer())).toEqual(bytes);
  });

  it("names an SII URL by the sandbox's service, as a replay names it", async () => {
    const sandbox = createDefaultSandbox();
    expect(await sandbox.serviceOf(new Request("https://zeus.sii.cl/cvc_cgi/bte/bte_indiv_cons2", { method: "POST" }))).toBe("bte_report");
    expect(await sandbox.serviceOf(new Request("https://www.sii.cl/valores_y_fechas/uf/uf2025.htm"))).toBe("indicadores");
    expect(await sandbox.serviceOf(new Request("https://www.sii.cl/nothing-here"))).toBeNull();
    // Asking counts nothing.
    expect(sandbox.state.calls.size).toBe(0);
    expect(sandbox.services()).toContain("rcv_detalle");
  });
});
