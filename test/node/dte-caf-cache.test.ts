// A CAF read once is kept for the next requests of the isolate (reading it costs as much as signing
// a few documents), yet it never stamps a document once the key that authenticated it is no longer
// trusted for its IDK, and a file changed in any byte is read and checked again.
import { beforeAll, describe, expect, it } from "vitest";
import { parseCertificateCredential, type SigningCredential } from "../../src/certificates/credentials.ts";
import { DteError } from "../../src/dte/errors.ts";
import { generateDocuments } from "../../src/dte/generate/generate.ts";
import { type RsaPublicKey, SII_CAF_KEYS } from "../../src/dte/verify/timbre.ts";
import { EXAMPLE_ISSUER, EXAMPLE_RECEIVER } from "../../src/routes/example-documents.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { buildCaf, sandboxCafPublicKey } from "../../src/sandbox/folios-caf.ts";

const NOW = new Date("2026-11-20T13:00:00Z");
const sandboxKey = sandboxCafPublicKey();
let signer: SigningCredential;
let caf: string;

beforeAll(async () => {
  const cert = SANDBOX_TAXPAYER_CERTS["11111111-1"];
  signer = await parseCertificateCredential({ "cert-data": cert.certPem, "pkey-data": cert.keyPem }, NOW);
  caf = await buildCaf({ rut: "76192083-9", razonSocial: "COMERCIAL SANDBOX SPA", tipo: 33, desde: 1, hasta: 100, fecha: "2026-11-01" });
});

const invoice = (folio: number) => ({
  Encabezado: { IdDoc: { TipoDTE: 33, Folio: folio }, Emisor: { ...EXAMPLE_ISSUER }, Receptor: { ...EXAMPLE_RECEIVER } },
  Detalle: [{ NmbItem: "Cable", QtyItem: 3, PrcItem: 1190 }],
});

function generate(cafText: string, cafKeys: ReadonlyMap<string, RsaPublicKey>, folio = 1) {
  return generateDocuments(
    { documents: [invoice(folio)], cafs: [cafText], resolucion: { fecha: "2014-08-22", numero: 80 }, normalizar: true },
    { signer, now: NOW, cafKeys },
  );
}

async function problems(cafText: string, cafKeys: ReadonlyMap<string, RsaPublicKey>): Promise<{ path: string; message: string }[]> {
  const error = await generate(cafText, cafKeys).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DteError);
  return (error as DteError).errors.map(({ path, message }) => ({ path, message }));
}

describe("CAFs kept between requests", () => {
  it("stamps with the same CAF again, and the stamp is the CAF's", async () => {
    const trusted = new Map([[sandboxKey.idk, sandboxKey]]);
    const first = await generate(caf, trusted, 1);
    const second = await generate(caf, trusted, 2);
    for (const out of [first, second]) expect(out.documentos[0]?.ted).toContain(`<IDK>${sandboxKey.idk}</IDK>`);
    expect(second.documentos[0]?.ted).toContain("<F>2</F>");
  });

  it("refuses a CAF read before once its IDK is no longer trusted, or is trusted with another key", async () => {
    await generate(caf, new Map([[sandboxKey.idk, sandboxKey]]));
    expect(await problems(caf, SII_CAF_KEYS)).toEqual([expect.objectContaining({ path: "caf.DA.IDK" })]);
    const otherKey = SII_CAF_KEYS.get("100") as RsaPublicKey;
    expect(await problems(caf, new Map([[sandboxKey.idk, otherKey]]))).toEqual([
      expect.objectContaining({ path: "caf.FRMA", message: expect.stringContaining("not authentic") }),
    ]);
    // Trusted again: stamps again.
    await expect(generate(caf, new Map([[sandboxKey.idk, sandboxKey]]))).resolves.toBeDefined();
  });

  it("checks a CAF changed in one byte of its range again, after the original was read", async () => {
    const trusted = new Map([[sandboxKey.idk, sandboxKey]]);
    await generate(caf, trusted);
    const altered = caf.replace("<H>100</H>", "<H>900</H>");
    expect(await problems(altered, trusted)).toEqual([
      expect.objectContaining({ path: "caf.FRMA", message: expect.stringContaining("not authentic") }),
    ]);
  });
});
