// Nothing secret at rest: the Node server with its SQLite file runs calls that carry every kind
// of taxpayer secret (a clave, a PEM key under a passphrase, a PFX and its passphrase, a proxy
// password) and a folio request whose answer holds the CAF's private key, with Idempotency-Key so
// answers are stored. Then the file's raw rows, and its raw bytes, are searched for each secret
// in every encoding a store could hold it in: plain, hex, base64 (any alignment, so base64 of a
// JSON document that holds it too) and base64url. The idempotency fingerprint must not be an
// unkeyed hash of the request either: from a copy of the store, a clave could be guessed against it.
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import forge from "node-forge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeServer } from "../../src/entry/node-server.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { SANDBOX_TAXPAYERS } from "../../src/sandbox/taxpayers.ts";
import { tokenFor } from "../support/app.ts";

const canary = (name: string) => `canary-${name}-${randomBytes(8).toString("hex")}`;
const CANARIES = {
  companyClave: canary("clave"),
  workerClave: canary("bhe-clave"),
  pemPassphrase: canary("pem"),
  pfxPassphrase: canary("pfx"),
  proxyPassword: canary("proxy"),
};
const COMPANY = "76192083-9";
const WORKER = "22222222-2";
const taxpayers = SANDBOX_TAXPAYERS.filter((t) => t.rut === COMPANY || t.rut === WORKER) as { rut: string; clave: string }[];
const originalClaves = taxpayers.map((t) => t.clave);

/** Every form a store could keep `secret` in. Base64 at each of the three byte alignments, its edges cut. */
function encodingsOf(secret: string): string[] {
  const bytes = Buffer.from(secret);
  const forms = [secret, bytes.toString("hex"), bytes.toString("hex").toUpperCase()];
  for (let pad = 0; pad < 3; pad++) {
    for (const alphabet of ["base64", "base64url"] as const) {
      const text = Buffer.concat([Buffer.alloc(pad, 0x20), bytes, Buffer.alloc(3, 0x20)]).toString(alphabet);
      forms.push(text.slice(pad === 0 ? 0 : 4, -8));
    }
  }
  return forms;
}

function credentials() {
  const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];
  const key = forge.pki.privateKeyFromPem(juana.keyPem);
  const cert = forge.pki.certificateFromPem(juana.certPem);
  const encryptedKey = forge.pki.encryptRsaPrivateKey(key, CANARIES.pemPassphrase, { algorithm: "aes256" });
  const pfx = forge.pkcs12.toPkcs12Asn1(key, [cert], CANARIES.pfxPassphrase, { algorithm: "aes256" });
  const pfxBase64 = forge.util.encode64(forge.asn1.toDer(pfx).getBytes());
  return {
    pem: { cert: { "cert-data": juana.certPem, "pkey-data": encryptedKey, passphrase: CANARIES.pemPassphrase } },
    pfx: { cert: { "pfx-data": pfxBase64, passphrase: CANARIES.pfxPassphrase } },
    pemKeyBody: encryptedKey.replace(/-----[^-]+-----|Proc-Type:.*|DEK-Info:.*|\s+/g, "").slice(200, 260),
    pfxBody: pfxBase64.slice(300, 360),
  };
}

let run: Awaited<ReturnType<typeof runAll>>;

async function runAll() {
  const dir = mkdtempSync(join(tmpdir(), "sii-gw-at-rest-"));
  const database = join(dir, "state.sqlite");
  const { app, deps } = await createNodeServer({
    env: { SII_UPSTREAM: "sandbox" },
    database,
    publicDir: join(import.meta.dirname, "..", "..", "public"),
    log: { log: () => {} },
  });
  const { secret } = await tokenFor(deps);
  const statuses: Record<string, number> = {};
  const texts: string[] = [];
  const call = async (name: string, path: string, method: string, body: unknown, key?: string) => {
    const res = await app.request(path, {
      method,
      headers: { "x-api-token": secret, "content-type": "application/json", ...(key ? { "idempotency-key": key } : {}) },
      body: JSON.stringify(body),
    });
    statuses[name] = res.status;
    const text = await res.text();
    texts.push(text);
    return text;
  };
  const c = credentials();
  const foliosPath = `/api/v1/sii/dte/caf/solicitar/${COMPANY}/33/5`;
  const foliosBody = { auth: c.pfx };
  const granted = await call("folios", foliosPath, "POST", foliosBody, "at-rest-folios");
  await call("foliosReplay", foliosPath, "POST", foliosBody, "at-rest-folios");
  const pemGrant = JSON.parse(
    await call("foliosPem", `/api/v1/sii/dte/caf/solicitar/${COMPANY}/33/2`, "POST", { auth: c.pem }, "at-rest-folios-pem"),
  ).data;
  const anular = `/api/v1/sii/dte/caf/anular/${COMPANY}/33/${pemGrant.folio_inicial}/${pemGrant.folio_final}`;
  await call("anularPem", anular, "POST", { auth: c.pem }, "at-rest-anular");
  const bhe = "/api/v1/sii/bhe/emitidas/email/222222220000041F99ED";
  const bheBody = { auth: { pass: { rut: WORKER, clave: CANARIES.workerClave } }, destinatario: { email: "pagos@cliente.cl" } };
  await call("bhe", bhe, "POST", bheBody, "at-rest-bhe");
  await call("bheReplay", bhe, "POST", bheBody, "at-rest-bhe");
  await call("rcv", `/api/v1/sii/rcv/ventas/resumen/${COMPANY}/202401`, "POST", {
    auth: { pass: { rut: COMPANY, clave: CANARIES.companyClave } },
  });
  await call("proxy", "/api/v1/settings/proxy", "PUT", {
    enabled: true,
    url: "http://127.0.0.1:3128",
    username: "gw",
    password: CANARIES.proxyPassword,
  });

  // The CAF's private key: one base64 line of its RSASK, and that part of `caf_xml` as the answer carried it.
  const cafBase64: string = JSON.parse(granted).data.caf_xml;
  const caf = Buffer.from(cafBase64, "base64").toString("latin1");
  const rsask = /<RSASK>([\s\S]*?)<\/RSASK>/.exec(caf)?.[1] ?? "";
  const cafKeyLine = rsask.split(/\s+/).find((line) => line.length >= 60 && !line.startsWith("-----")) ?? "";
  const at = Math.ceil((caf.indexOf(cafKeyLine) + 1) / 3) * 4;
  const cafKeyInAnswer = cafBase64.slice(at, at + 60);
  // What an unkeyed fingerprint of the folio request would be: a copy of the store could test claves against it.
  const unkeyed = createHash("sha256")
    .update(`POST ${foliosPath}?\n${JSON.stringify(foliosBody)}`)
    .digest("hex");
  const bheUnkeyed = createHash("sha256")
    .update(`POST ${bhe}?\n${JSON.stringify(bheBody)}`)
    .digest("hex");

  const db = new DatabaseSync(database, { readOnly: true });
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name);
  const rows = tables.flatMap((table) =>
    (db.prepare(`SELECT * FROM "${table}"`).all() as Record<string, unknown>[]).map((row) => ({ table, row })),
  );
  db.close();
  const files = readdirSync(dir).map((name) => readFileSync(join(dir, name)).toString("latin1"));
  return { statuses, texts, rows, files, tables, cafKeyLine, cafKeyInAnswer, unkeyed, bheUnkeyed, c };
}

beforeAll(async () => {
  for (const t of taxpayers) t.clave = t.rut === COMPANY ? CANARIES.companyClave : CANARIES.workerClave;
  run = await runAll();
});
afterAll(() => {
  taxpayers.forEach((t, i) => {
    t.clave = originalClaves[i] ?? t.clave;
  });
});

describe("secrets at rest (Node server, SQLite file)", () => {
  it("the calls succeeded, stored their answers and replayed them", () => {
    expect(run.statuses).toEqual({
      folios: 200,
      foliosReplay: 200,
      foliosPem: 200,
      anularPem: 200,
      bhe: 200,
      bheReplay: 200,
      rcv: 200,
      proxy: 200,
    });
    expect(run.tables).toEqual(expect.arrayContaining(["idempotency", "settings", "tokens"]));
    expect(run.rows.filter((r) => r.table === "idempotency")).toHaveLength(4);
    // The replay is the stored answer: the same CAF, key included.
    expect(run.texts[1]).toBe(run.texts[0]);
    expect(run.cafKeyLine.length).toBeGreaterThanOrEqual(60);
    expect(run.cafKeyInAnswer).toHaveLength(60);
    expect(run.texts[0]).toContain(run.cafKeyInAnswer);
  });

  it("no secret is in any row or in the file's bytes, in any encoding", () => {
    const secrets: Record<string, string> = {
      ...CANARIES,
      pemKey: run.c.pemKeyBody,
      pfxFile: run.c.pfxBody,
      cafPrivateKey: run.cafKeyLine,
      cafPrivateKeyAsAnswered: run.cafKeyInAnswer,
      unkeyedFolioFingerprint: run.unkeyed,
      unkeyedBheFingerprint: run.bheUnkeyed,
    };
    const places: Record<string, string> = { files: run.files.join("\n") };
    for (const { table, row } of run.rows) places[`table ${table}`] = `${places[`table ${table}`] ?? ""}\n${JSON.stringify(row)}`;
    const found: string[] = [];
    for (const [name, secret] of Object.entries(secrets)) {
      expect(secret.length, name).toBeGreaterThanOrEqual(20);
      for (const form of encodingsOf(secret)) {
        for (const [where, text] of Object.entries(places)) if (text.includes(form)) found.push(`${name} in ${where}`);
      }
    }
    expect([...new Set(found)]).toEqual([]);
  });

  it("the search is real: a secret written in any of those encodings is found", () => {
    const secret = CANARIES.companyClave;
    const samples = [
      secret,
      Buffer.from(secret).toString("hex"),
      Buffer.from(`x${JSON.stringify({ auth: { clave: secret } })}`).toString("base64"),
      Buffer.from(JSON.stringify({ clave: secret })).toString("base64url"),
      Buffer.from(`ab${secret}`).toString("base64"),
    ];
    for (const sample of samples) expect(encodingsOf(secret).some((form) => sample.includes(form))).toBe(true);
  });
});
