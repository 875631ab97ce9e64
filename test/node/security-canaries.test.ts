// Secret hygiene: canary credentials (a clave, an encrypted PEM key's
// passphrase, a PFX passphrase, a proxy password, an API token) go through successful and failing
// calls; none may appear in the logs, in any answer, in anything handed to a store, in the raw
// SQLite rows, or in /openapi.json. API tokens at rest are their SHA-256 only.
import { createHash, randomBytes } from "node:crypto";
import forge from "node-forge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryCacheStore } from "../../src/adapters/memory/cache.ts";
import { memorySessionStore } from "../../src/adapters/memory/sessions.ts";
import { sqliteStores } from "../../src/adapters/node/sqlite-stores.ts";
import { EXAMPLE_ISSUER } from "../../src/routes/example-documents.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { SANDBOX_TAXPAYERS } from "../../src/sandbox/taxpayers.ts";
import { ADMIN, probeApp, type Stores } from "../support/app.ts";

const canary = (name: string) => `canary-${name}-${randomBytes(6).toString("hex")}`;
const CANARIES = {
  clave: canary("clave"),
  pemPassphrase: canary("pem"),
  pfxPassphrase: canary("pfx"),
  proxyPassword: canary("proxy"),
};

const company = SANDBOX_TAXPAYERS.find((t) => t.rut === "76192083-9");
const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];

/** Every value handed to a store method, as JSON: what could end up at rest on any runtime. */
function recorded<T extends object>(store: T, sink: string[]): T {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        sink.push(JSON.stringify(args, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString("latin1") : v)));
        return value.apply(target, args);
      };
    },
  });
}

let credentials: ReturnType<typeof makeCredentials> | undefined;
/** Made once: encrypting a key or a PFX salts it afresh, and the leak check needs the bytes that were sent. */
function credentialsWithCanaries() {
  credentials ??= makeCredentials();
  return credentials;
}

function makeCredentials() {
  const key = forge.pki.privateKeyFromPem(juana.keyPem);
  const cert = forge.pki.certificateFromPem(juana.certPem);
  const encryptedKey = forge.pki.encryptRsaPrivateKey(key, CANARIES.pemPassphrase, { algorithm: "aes256" });
  const pfx = forge.pkcs12.toPkcs12Asn1(key, [cert], CANARIES.pfxPassphrase, { algorithm: "aes256" });
  const pfxBase64 = forge.util.encode64(forge.asn1.toDer(pfx).getBytes());
  return {
    pem: { auth: { cert: { "cert-data": juana.certPem, "pkey-data": encryptedKey, passphrase: CANARIES.pemPassphrase } } },
    pemWrong: { auth: { cert: { "cert-data": juana.certPem, "pkey-data": encryptedKey, passphrase: `${CANARIES.pemPassphrase}-x` } } },
    pfx: { auth: { cert: { "pfx-data": pfxBase64, passphrase: CANARIES.pfxPassphrase } } },
    pfxWrong: { auth: { cert: { "pfx-data": pfxBase64, passphrase: `${CANARIES.pfxPassphrase}-x` } } },
    /** The same PFX under the apigateway.cl SDKs' names. */
    pfxAlias: { auth: { cert: { "file-data": pfxBase64, "file-pass": CANARIES.pfxPassphrase } } },
    pfxAliasWrong: { auth: { cert: { "file-data": pfxBase64, "file-pass": `${CANARIES.pfxPassphrase}-x` } } },
    /** Pieces of the key material itself: the encrypted PEM key's body and the PFX file. */
    pemKeyBody: encryptedKey.replace(/-----[^-]+-----|Proc-Type:.*|DEK-Info:.*|\s+/g, "").slice(200, 260),
    pfxBody: pfxBase64.slice(300, 360),
    clave: { auth: { pass: { rut: "76192083-9", clave: CANARIES.clave } } },
    claveWrong: { auth: { pass: { rut: "76192083-9", clave: `${CANARIES.clave}-x` } } },
  };
}

/** documentos/generar with each kind of auth.cert, right and wrong, on a CAF the sandbox grants. */
async function generar(
  post: (path: string, body: unknown, headers?: Record<string, string>) => Promise<{ status: number; text: string }>,
  c: ReturnType<typeof credentialsWithCanaries>,
) {
  const granted = await post("/api/v1/sii/dte/caf/solicitar/76192083-9/33/4", c.pem);
  const { data } = JSON.parse(granted.text.slice(granted.text.indexOf("\n{") + 1));
  const request = (auth: unknown, folio: number) => ({
    ...(auth as object),
    dte: {
      Encabezado: {
        IdDoc: { TipoDTE: 33, Folio: data.folio_inicial + folio },
        Emisor: EXAMPLE_ISSUER,
        Receptor: { RUTRecep: "22222222-2", RznSocRecep: "Pedro", GiroRecep: "Servicios", DirRecep: "Calle 1", CmnaRecep: "Santiago" },
      },
      Detalle: { NmbItem: "Item", QtyItem: 1, PrcItem: 1_000 },
    },
    caf: data.caf_xml,
    resolucion: { fecha: "2014-08-22", numero: 80 },
  });
  const path = "/api/v1/platform/dte/documentos/generar";
  return {
    generarPem: (await post(path, request(c.pem, 0))).status,
    generarPemWrong: (await post(path, request(c.pemWrong, 1))).status,
    generarPfx: (await post(path, request(c.pfx, 2))).status,
    generarPfxWrong: (await post(path, request(c.pfxWrong, 3))).status,
  };
}

const originalClave = company?.clave ?? "";
let run: Awaited<ReturnType<typeof runEverything>>;

async function runEverything() {
  const { db, ...sqlite } = sqliteStores(":memory:");
  const handed: string[] = [];
  const stores: Stores = {
    tokens: recorded(sqlite.tokens, handed),
    quota: recorded(sqlite.quota, handed),
    settings: recorded(sqlite.settings, handed),
    idempotency: recorded(sqlite.idempotency, handed),
    sessions: recorded(memorySessionStore(), handed),
    cache: recorded(memoryCacheStore(), handed),
  };
  const { app, logs } = probeApp(stores);
  const answers: { status: number; text: string }[] = [];
  const call = async (path: string, init: RequestInit) => {
    const res = await app.request(path, init);
    const text = `${[...res.headers].map(([k, v]) => `${k}: ${v}`).join("\n")}\n${await res.text()}`;
    answers.push({ status: res.status, text });
    return { status: res.status, text };
  };

  const issued = await call("/admin/v1/tokens", {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
    body: JSON.stringify({
      name: "canary",
      account: "acme",
      scopes: ["sii:read", "sii:write", "settings:read", "settings:write"],
      plan: { daily_units: 10_000, monthly_units: 100_000 },
    }),
  });
  // The one answer allowed to carry the token secret: the issuing one, shown once.
  answers.pop();
  const token: string = JSON.parse(issued.text.slice(issued.text.indexOf("\n{") + 1)).data.token;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    call(path, {
      method: "POST",
      headers: { "x-api-token": token, "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });

  const c = credentialsWithCanaries();
  const datos = "/api/v1/sii/dte/contribuyentes/datos/76192083-9";
  const statuses = {
    pem: (await post(datos, c.pem)).status,
    pemWrong: (await post(datos, c.pemWrong)).status,
    pfx: (await post(datos, c.pfx)).status,
    pfxWrong: (await post(datos, c.pfxWrong)).status,
    pfxAlias: (await post(datos, c.pfxAlias)).status,
    pfxAliasWrong: (await post(datos, c.pfxAliasWrong)).status,
    pemAgain: (await post(datos, c.pem)).status,
    clave: (await post("/api/v1/sii/rcv/ventas/resumen/76192083-9/202401", c.clave)).status,
    claveWrong: (await post("/api/v1/sii/rcv/ventas/resumen/76192083-9/202401", c.claveWrong)).status,
    claveAgain: (await post("/api/v1/sii/rcv/ventas/resumen/76192083-9/202401", c.clave)).status,
    folios: (await post("/api/v1/sii/dte/caf/solicitar/76192083-9/33/5", c.pfx, { "idempotency-key": "canary-folios-1" })).status,
    foliosReplay: (await post("/api/v1/sii/dte/caf/solicitar/76192083-9/33/5", c.pfx, { "idempotency-key": "canary-folios-1" })).status,
    foliosConflict: (await post("/api/v1/sii/dte/caf/solicitar/76192083-9/33/5", c.pem, { "idempotency-key": "canary-folios-1" })).status,
    // documentos/generar signs with auth.cert: a PEM key under a passphrase, and a PFX.
    ...(await generar(post, c)),
    proxy: (
      await call("/api/v1/settings/proxy", {
        method: "PUT",
        headers: { "x-api-token": token, "content-type": "application/json" },
        body: JSON.stringify({ enabled: true, url: "http://127.0.0.1:3128", username: "gw", password: CANARIES.proxyPassword }),
      })
    ).status,
    proxyRead: (await call("/api/v1/settings/proxy", { headers: { "x-api-token": token } })).status,
    malformed: (
      await call(datos, {
        method: "POST",
        headers: { "x-api-token": token, "content-type": "application/json" },
        body: `{"auth":{"pass":{"clave":"${CANARIES.clave}"`,
      })
    ).status,
    wrongType: (await post(datos, { auth: { pass: { rut: 76192083, clave: [CANARIES.clave] } } })).status,
    badToken: (await call("/api/v1/usage", { headers: { "x-api-token": `${token}x` } })).status,
  };
  const openapi = await (await app.request("/openapi.json")).text();
  const rows = ["tokens", "quota", "settings", "cache", "idempotency"].flatMap((table) =>
    (db.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[]).map((row) => ({ table, row })),
  );
  return { token, statuses, answers, logs: logs.map((l) => JSON.stringify(l)), handed, rows, openapi };
}

beforeAll(async () => {
  // The sandbox's company takes the canary as its clave for this file's calls.
  if (company) (company as { clave: string }).clave = CANARIES.clave;
  run = await runEverything();
});
afterAll(() => {
  if (company) (company as { clave: string }).clave = originalClave;
});

describe("secret canaries", () => {
  it("went through successful and failing calls of every credential kind", () => {
    expect(run.statuses).toEqual({
      pem: 200,
      pemWrong: 400,
      pfx: 200,
      pfxWrong: 400,
      pfxAlias: 200,
      pfxAliasWrong: 400,
      pemAgain: 200,
      clave: 200,
      claveWrong: 400,
      claveAgain: 200,
      folios: 200,
      foliosReplay: 200,
      foliosConflict: 409,
      generarPem: 200,
      generarPemWrong: 400,
      generarPfx: 200,
      generarPfxWrong: 400,
      proxy: 200,
      proxyRead: 200,
      malformed: 422,
      wrongType: 422,
      badToken: 401,
    });
    expect(run.logs.length).toBeGreaterThan(10);
    expect(run.handed.length).toBeGreaterThan(10);
  });

  const everywhere = () => ({
    logs: run.logs.join("\n"),
    answers: run.answers.map((a) => a.text).join("\n"),
    "values handed to stores": run.handed.join("\n"),
    "SQLite rows": JSON.stringify(run.rows),
    "/openapi.json": run.openapi,
  });

  it("no canary (clave, PEM and PFX passphrases, PEM key and PFX bodies, proxy password, API token) appears anywhere", () => {
    const c = credentialsWithCanaries();
    const secrets = { ...CANARIES, pemKey: c.pemKeyBody, pfxFile: c.pfxBody, token: run.token };
    const found: string[] = [];
    for (const [where, text] of Object.entries(everywhere())) {
      for (const [name, secret] of Object.entries(secrets)) if (text.includes(secret)) found.push(`${name} in ${where}`);
    }
    console.info(
      `canaries: ${Object.keys(secrets).length} secrets looked for in ${run.answers.length} answers, ${run.logs.length} log lines, ${run.handed.length} store calls, ${run.rows.length} SQLite rows and /openapi.json; found ${found.length}`,
    );
    expect(found).toEqual([]);
  });

  it("the check is real: the canaries were sent, and a leak would be found", () => {
    const c = credentialsWithCanaries();
    const sent = JSON.stringify(c);
    for (const secret of [CANARIES.pemPassphrase, CANARIES.pfxPassphrase, CANARIES.clave, c.pemKeyBody, c.pfxBody]) {
      expect(secret.length).toBeGreaterThanOrEqual(20);
      expect(sent).toContain(secret);
    }
    expect(run.handed.join("\n")).toContain(createHash("sha256").update(run.token).digest("hex"));
  });

  it("API tokens at rest are their SHA-256, never the secret; the proxy password is sealed", () => {
    const tokens = run.rows.filter((r) => r.table === "tokens");
    const hash = createHash("sha256").update(run.token).digest("hex");
    expect(tokens.some((r) => r.row.token_hash === hash)).toBe(true);
    expect(JSON.stringify(tokens)).not.toContain(run.token);
    const settings = JSON.stringify(run.rows.filter((r) => r.table === "settings"));
    expect(settings).toContain("password_box");
    expect(settings).not.toContain(CANARIES.proxyPassword);
  });

  it("/openapi.json carries no private key material in its examples", () => {
    expect(run.openapi).not.toMatch(/-----BEGIN [A-Z ]*PRIVATE KEY-----\\n[A-Za-z0-9+/]{40}/);
    expect(run.openapi).not.toContain(juana.keyPem.split("\n")[1]);
  });
});
