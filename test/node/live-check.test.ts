import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.ts";
import { SANDBOX_TAXPAYERS } from "../../src/sandbox/taxpayers.ts";
import { liveTransport } from "../../src/sii/transport.ts";
import { bodyOf, postJson, secretIn, testDeps, tokenFor } from "../support/app.ts";

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
          const m = /^(\w+)\s{2,}(works|refused by the SII|could not be read|skipped|gateway error)\s{2,}(.*)$/.exec(line);
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
  return Object.values(doc.paths).flatMap((item) =>
    Object.values(item)
      .filter((op) => op["x-scope"] === "sii:read")
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
    expect(run.stdout).toMatch(/summary: \d+ works, \d+ refused by the SII, \d+ could not be read, 0 gateway errors, 5 skipped/);
    // README shows this output: its header and summary lines are the ones printed here.
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    for (const line of run.stdout.split("\n").filter((l) => /^(SII live check for|operation |summary: )/.test(l))) {
      expect(readme, "README's live-check example").toContain(line.trimEnd());
    }
  }, 120_000);

  it("stops using a clave the SII refused, so repeated failures cannot lock it", async () => {
    const run = await liveCheck(["--out", join(tmpdir(), "live-check-unused")], ["--rut", "76192083-9", "--clave", "not-the-clave"]);
    expect(run.code).toBe(0);
    const refused = [...run.rows].filter(([, row]) => row.detail.includes("AUTH_ERROR"));
    expect(refused.map(([id]) => id)).toEqual(["post_sii_bte_emitidas_resumen"]);
    expect(run.rows.get("post_sii_rcv_compras_resumen")?.detail).toMatch(/refused the clave once/);
    expect(run.rows.get("get_sii_indicadores_uf_anual")?.result).toBe("works");
  }, 120_000);

  it("saves the answers it could not read, redacted, and --strict fails on them", async () => {
    const out = mkdtempSync(join(tmpdir(), "live-check-"));
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
    } finally {
      rmSync(out, { recursive: true, force: true });
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
    const body = await bodyOf(res);
    expect(body.error_code).toBe("SII_GATEWAY_ERROR");
    const excerpt: string = body.details.sii_excerpt;
    expect(excerpt).toContain("Error inesperado en el sistema");
    expect(excerpt.length).toBeLessThanOrEqual(500);
    expect(excerpt).toContain("12345678-?");
    expect(excerpt).toContain("76192083-9");
    // No form of the clave survives anywhere in the answer.
    const text = JSON.stringify(body);
    for (const form of [CLAVE, encodeURIComponent(CLAVE), btoa(CLAVE), "Canary"]) expect(text).not.toContain(form);
  }, 20_000);

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
    const body = await bodyOf(res);
    expect(body.details.reason).toContain("fetch failed");
    expect(body.details.sii_excerpt).toBeUndefined();
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
    const body = await bodyOf(res);
    expect(body.details.sii_excerpt).toBeUndefined();
  });
});
