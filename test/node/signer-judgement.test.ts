// The signer of a received document judged as the SII would: the time its chain is judged at is bounded by
// what the signer cannot forge (the moment of verification, the CAF's authorisation date, the stamp's
// TSTED, the document's FchEmis), the leaf must be a signing certificate naming one RUT, the envelope's
// coherence problems reach the verdict, and every CA of the chain is checked as a CA. Certificates come
// from a test CA made here, trusted through the operator's trust anchors; generar refuses to sign with a
// certificate the SII would reject.
import { describe, expect, it } from "vitest";
import { CredentialError } from "../../src/certificates/credential-error.ts";
import { type GenerateRequest, generateDocuments } from "../../src/dte/generate/generate.ts";
import { signSeed } from "../../src/dte/sign/seed.ts";
import { type RsaPublicKey, SII_CAF_KEYS } from "../../src/dte/verify/timbre.ts";
import { base64ToBytes, bytesToBase64 } from "../../src/lib/encoding.ts";
import { fromCredentialError } from "../../src/platform/failure.ts";
import { Verified } from "../../src/routes/envios/verificar.ts";
import { EXAMPLE_ISSUER, EXAMPLE_RECEIVER } from "../../src/routes/example-documents.ts";
import { buildCaf, sandboxCafPublicKey } from "../../src/sandbox/folios-caf.ts";
import { answerOf } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";
import { type CertificateOptions, makeCertificate, rsaKey, signerOf, type TestCertificate, type TestKey } from "../support/certificates.ts";
import { signedDte, signedEnvelope, type TestDocument, type TestSigner } from "../support/envelope.ts";

const VERIFICAR = "/api/v1/platform/dte/envios/verificar";
const COMPANY = "76192083-9";
const RUT = "11111111-1";
const NOW = new Date("2026-11-28T12:00:00Z");

let ca: Promise<TestCertificate> | undefined;
const testCa = () => {
  ca ??= rsaKey().then((key) => makeCertificate({ name: "Test Signing CA", key, ca: true, keyUsage: ["keyCertSign", "cRLSign"] }));
  return ca;
};
let leafKey: Promise<TestKey> | undefined;
const sharedKey = () => {
  leafKey ??= rsaKey();
  return leafKey;
};
/** The other CAs' one key (the walk goes by names and signatures; fewer keys keep the tests quick). */
let otherCaKey: Promise<TestKey> | undefined;
const caKey = () => {
  otherCaKey ??= rsaKey();
  return otherCaKey;
};

/** A signing leaf of the test CA, as real DTE signers' certificates are, with `options` changed. */
async function leaf(options: Partial<CertificateOptions> = {}): Promise<TestCertificate> {
  return makeCertificate({
    name: "Firmante de Prueba",
    key: options.key ?? (await sharedKey()),
    issuer: options.issuer ?? (await testCa()),
    ca: false,
    keyUsage: ["digitalSignature", "nonRepudiation"],
    extKeyUsage: { purposes: ["1.3.6.1.5.5.7.3.2", "1.3.6.1.5.5.7.3.4"] },
    ruts: [RUT],
    ...options,
  });
}

async function setup(anchors: Uint8Array[] = []) {
  const t = probeApp(undefined, { trustAnchors: [(await testCa()).der, ...anchors] });
  t.deps.clock.now = () => NOW;
  const token = await tokenFor(t.deps, { scopes: ["sii:read"] });
  const caf = await buildCaf({ rut: COMPANY, razonSocial: "COMERCIAL SANDBOX SPA", tipo: 33, desde: 1, hasta: 100, fecha: "2026-11-01" });
  const verify = async (xml: Uint8Array<ArrayBuffer> | string) => {
    const bytes = typeof xml === "string" ? new TextEncoder().encode(xml) : xml;
    const res = await postJson(t.app, token.secret, VERIFICAR, { xml: bytesToBase64(bytes) });
    expect(res.status).toBe(200);
    return (await answerOf(res, Verified)).data;
  };
  return { verify, caf };
}

const doc = (caf: string, extra: Partial<TestDocument> = {}): TestDocument => ({
  tipo: 33,
  folio: 7,
  receptor: "22222222-2",
  total: 11_900,
  caf,
  ...extra,
});

describe("the control: a signer of the test CA, signing when the document says", () => {
  it("verifies, chained to the operator's anchor", async () => {
    const { verify, caf } = await setup();
    const data = await verify(await signedEnvelope(await signerOf(await leaf()), COMPANY, [doc(caf)]));
    expect(data.documentos[0]?.firmante).toMatchObject({ confianza: "cadena_valida", cadena: ["Firmante de Prueba", "Test Signing CA"] });
    expect(data.sobre?.firmante?.confianza).toBe("cadena_valida");
    expect([data.valido, data.motivo]).toEqual([true, null]);
  });
});

describe("the time the chain is judged at", () => {
  it("a signing time moved back before the stamp's TSTED, into a short-lived leaf's validity, is refused", async () => {
    const { verify, caf } = await setup();
    const shortLived = await leaf({ notBefore: new Date("2025-01-01"), notAfter: new Date("2025-06-30") });
    const dte = await signedDte(await signerOf(shortLived), COMPANY, doc(caf, { tmstFirma: "2025-03-01T10:00:00" }));
    const data = await verify(dte);
    expect(data.documentos[0]?.firma).toMatchObject({ valido: false, motivo: expect.stringMatching(/before the TED's TSTED/) });
    expect(data.documentos[0]?.firmante?.confianza).toBe("cadena_invalida");
    expect(data.valido).toBe(false);
  });

  it("an expired intermediate is not revived by a signing time moved back", async () => {
    const root = await makeCertificate({ name: "Test Root", key: await caKey(), ca: true });
    const old = await makeCertificate({
      name: "Old CA",
      key: await caKey(),
      issuer: root,
      ca: true,
      notBefore: new Date("2024-01-01"),
      notAfter: new Date("2025-06-30"),
    });
    const { verify, caf } = await setup([root.der, old.der]);
    const signer = await leaf({ issuer: old, notBefore: new Date("2025-01-01") });
    const data = await verify(await signedDte(await signerOf(signer), COMPANY, doc(caf, { tmstFirma: "2025-03-01T10:00:00" })));
    expect(data.documentos[0]?.firma).toMatchObject({ valido: false, motivo: expect.stringMatching(/before the TED's TSTED/) });
  });

  it.each(["2030-06-01T10:00:00", "2044-01-01T10:00:00"])(
    "a leaf valid only in the future, signing at %s, is refused: that is after the verification",
    async (tmstFirma) => {
      const { verify, caf } = await setup();
      const future = await leaf({ notBefore: new Date("2030-01-01") });
      const data = await verify(await signedDte(await signerOf(future), COMPANY, doc(caf, { tmstFirma })));
      expect(data.documentos[0]?.firma).toMatchObject({ valido: false, motivo: expect.stringMatching(/after the moment of verification/) });
      expect(data.valido).toBe(false);
    },
  );

  it("an envelope's TmstFirmaEnv moved back before its documents' TSTED is refused", async () => {
    const { verify, caf } = await setup();
    const shortLived = await leaf({ notBefore: new Date("2025-01-01"), notAfter: new Date("2025-06-30") });
    const signer = await signerOf(shortLived);
    const data = await verify(await signedEnvelope(signer, COMPANY, [doc(caf)], { tmstFirmaEnv: "2025-03-01T10:00:00" }));
    expect(data.sobre?.firma).toMatchObject({
      valido: false,
      motivo: expect.stringMatching(/TmstFirmaEnv the document states: that is before the TED's TSTED/),
    });
    expect(data.valido).toBe(false);
  });

  it("a signing time before the CAF's authorisation date (FA) is refused", async () => {
    const { verify } = await setup();
    const lateCaf = await buildCaf({
      rut: COMPANY,
      razonSocial: "COMERCIAL SANDBOX SPA",
      tipo: 33,
      desde: 1,
      hasta: 100,
      fecha: "2026-11-25",
    });
    const data = await verify(await signedDte(await signerOf(await leaf()), COMPANY, doc(lateCaf)));
    expect(data.documentos[0]?.firma).toMatchObject({ valido: false, motivo: expect.stringMatching(/before its CAF was authorised/) });
  });

  it("a signing time weeks before the document's FchEmis is refused; a day before is not", async () => {
    const { verify, caf } = await setup();
    const signer = await signerOf(await leaf());
    const early = await verify(await signedDte(signer, COMPANY, doc(caf, { fchEmis: "2026-12-15" })));
    expect(early.documentos[0]?.firma).toMatchObject({ valido: false, motivo: expect.stringMatching(/before the document's FchEmis/) });
    // Real documents are signed the day before their FchEmis (cl-sii's DTE--76399752-9--33--25568).
    const dayBefore = await verify(await signedDte(signer, COMPANY, doc(caf, { fchEmis: "2026-11-21" })));
    expect(dayBefore.documentos[0]?.firma).toEqual({ valido: true, motivo: null });
  });
});

describe("the leaf must be a signing certificate", () => {
  const refused: [string, () => Promise<Partial<CertificateOptions>>, RegExp][] = [
    ["keyUsage keyEncipherment only", async () => ({ keyUsage: ["keyEncipherment"] }), /keyUsage/],
    ["keyUsage keyCertSign and cRLSign only", async () => ({ keyUsage: ["keyCertSign", "cRLSign"] }), /keyUsage/],
    [
      "a critical extendedKeyUsage of serverAuth only",
      async () => ({ extKeyUsage: { purposes: ["1.3.6.1.5.5.7.3.1"], critical: true } }),
      /extendedKeyUsage/,
    ],
    [
      "an unknown critical extension",
      async () => ({ criticalExtension: "1.3.6.1.4.1.99999.1" }),
      /critical extension 1\.3\.6\.1\.4\.1\.99999\.1/,
    ],
    ["a 512-bit RSA key", async () => ({ key: await rsaKey(512) }), /512 bits/],
    ["a CA certificate", async () => ({ ca: true }), /is a CA/],
    ["two RUTs", async () => ({ ruts: [RUT, "22222222-2"] }), /more than one RUT/],
    ["a serialNumber RUT that disagrees with its subjectAltName's", async () => ({ serialNumber: "22222222-2" }), /more than one RUT/],
    ["no RUT", async () => ({ ruts: [] }), /no RUT/],
  ];
  it.each(refused)("%s: the signature does not establish a signer", async (_, options, reason) => {
    const { verify, caf } = await setup();
    const data = await verify(await signedDte(await signerOf(await leaf(await options())), COMPANY, doc(caf)));
    expect(data.documentos[0]?.firma).toMatchObject({ valido: false, motivo: expect.stringMatching(reason) });
    expect(data.documentos[0]?.firmante?.confianza).toBe("cadena_invalida");
    expect(data.valido).toBe(false);
  });

  it("a 1024-bit key passes with a note; anyExtendedKeyUsage and no keyUsage at all pass", async () => {
    const { verify, caf } = await setup();
    const short = await verify(await signedDte(await signerOf(await leaf({ key: await rsaKey(1024) })), COMPANY, doc(caf)));
    expect(short.documentos[0]?.firma).toEqual({ valido: true, motivo: expect.stringMatching(/1024 bits/) });
    expect(short.valido).toBe(true);
    const any = await leaf({ keyUsage: undefined, extKeyUsage: { purposes: ["2.5.29.37.0"], critical: true } });
    const data = await verify(await signedDte(await signerOf(any), COMPANY, doc(caf)));
    expect(data.documentos[0]?.firma).toEqual({ valido: true, motivo: null });
  });
});

describe("the envelope's coherence reaches the verdict", () => {
  it("a RutEnvia that is not the envelope's signer makes it invalid, and says so", async () => {
    const { verify, caf } = await setup();
    const data = await verify(await signedEnvelope(await signerOf(await leaf()), COMPANY, [doc(caf)], { rutEnvia: "22222222-2" }));
    expect(data.valido).toBe(false);
    expect(data.motivo).toMatch(/RutEnvia is 22222222-2, but the envelope was signed by 11111111-1/);
  });

  it("a carátula whose counts disagree with the envelope makes it invalid", async () => {
    const { verify, caf } = await setup();
    const signer = await signerOf(await leaf());
    const data = await verify(await signedEnvelope(signer, COMPANY, [doc(caf)], { subtotales: [{ tipo: 33, cantidad: 2 }] }));
    expect(data.valido).toBe(false);
    expect(data.motivo).toMatch(/says 2 documents of type 33; the envelope has 1/);
  });
});

describe("every CA of the chain is checked as a CA", () => {
  it("an intermediate added as a trust anchor whose keyUsage lacks keyCertSign cannot issue", async () => {
    const root = await makeCertificate({ name: "Test Root", key: await caKey(), ca: true });
    const intermediate = await makeCertificate({
      name: "Not A Signing CA",
      key: await caKey(),
      issuer: root,
      ca: true,
      keyUsage: ["digitalSignature"],
    });
    const { verify, caf } = await setup([root.der, intermediate.der]);
    const data = await verify(await signedDte(await signerOf(await leaf({ issuer: intermediate })), COMPANY, doc(caf)));
    expect(data.documentos[0]?.firma).toMatchObject({ valido: false, motivo: expect.stringMatching(/keyCertSign/) });
  });

  it("a root whose pathLen is 0 cannot vouch for an intermediate", async () => {
    const root = await makeCertificate({ name: "Test Root", key: await caKey(), ca: true, pathLen: 0 });
    const intermediate = await makeCertificate({ name: "Test Intermediate", key: await caKey(), issuer: root, ca: true });
    const { verify, caf } = await setup([root.der, intermediate.der]);
    const data = await verify(await signedDte(await signerOf(await leaf({ issuer: intermediate })), COMPANY, doc(caf)));
    expect(data.documentos[0]?.firma).toMatchObject({ valido: false, motivo: expect.stringMatching(/pathLen/) });
  });

  it("a chain sent CA first still names the leaf, whose key signed, as the signer", async () => {
    const { verify, caf } = await setup();
    const signer = await signerOf(await leaf());
    const dte = await signedDte(signer, COMPANY, doc(caf));
    const caFirst = dte.replace(
      "<X509Certificate>",
      `<X509Certificate>${bytesToBase64((await testCa()).der)}</X509Certificate><X509Certificate>`,
    );
    const data = await verify(caFirst);
    expect(data.documentos[0]?.firmante).toMatchObject({ nombre: "Firmante de Prueba", confianza: "cadena_valida" });
    expect(data.documentos[0]?.firma).toEqual({ valido: true, motivo: null });
  });
});

describe("generar, and the seed a login signs, refuse a certificate the SII would reject", () => {
  const sandboxKey = sandboxCafPublicKey();
  const cafKeys = new Map<string, RsaPublicKey>([...SII_CAF_KEYS, [sandboxKey.idk, sandboxKey]]);
  async function generateWith(certificate: TestCertificate) {
    const caf = await buildCaf({
      rut: EXAMPLE_ISSUER.RUTEmisor as string,
      razonSocial: "X",
      tipo: 33,
      desde: 1,
      hasta: 10,
      fecha: "2026-11-01",
    });
    const request: GenerateRequest = {
      documents: [
        {
          Encabezado: { IdDoc: { TipoDTE: 33, Folio: 1 }, Emisor: { ...EXAMPLE_ISSUER }, Receptor: { ...EXAMPLE_RECEIVER } },
          Detalle: [{ NmbItem: "Servicio", QtyItem: 1, PrcItem: 1000 }],
        },
      ],
      cafs: [caf],
      resolucion: { fecha: "2014-08-22", numero: 80 },
      normalizar: true,
    };
    return generateDocuments(request, { signer: await signerOf(certificate), now: NOW, cafKeys }).then(
      () => null,
      (error: unknown) => error,
    );
  }

  it("signs with a proper signing certificate", async () => {
    expect(await generateWith(await leaf())).toBeNull();
  });

  it.each([
    ["a 512-bit key", async () => ({ key: await rsaKey(512) }), /512 bits/],
    ["an encryption-only certificate", async () => ({ keyUsage: ["keyEncipherment" as const] }), /keyUsage/],
    ["two RUTs", async () => ({ ruts: [RUT, "22222222-2"] }), /more than one RUT/],
    ["a CA certificate", async () => ({ ca: true }), /is a CA/],
  ])("refuses %s, naming auth.cert", async (_, options, reason) => {
    const error = await generateWith(await leaf(await options()));
    expect(error).toBeInstanceOf(CredentialError);
    const api = fromCredentialError(error as CredentialError);
    expect([api.status, api.code]).toEqual([400, "AUTH_ERROR"]);
    expect(api.init).toEqual({ errors: [{ path: "auth.cert", location: "body", message: expect.stringMatching(reason) }] });
  });

  it("the seed a login signs is refused the same way, before it is signed", async () => {
    const error = await signSeed("123456", await signerOf(await leaf({ ca: true }))).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CredentialError);
    expect((error as CredentialError).path).toBe("auth.cert");
    expect(await signSeed("123456", await signerOf(await leaf()))).toMatch(/<SignatureValue>/);
  });
});
