// Forgeries that verified as genuine or signed under folios the SII never granted: each shape is a
// signed document (or CAF) taken apart and put together again the way an attacker would. What
// envios/verificar calls valid must be what formatos/json presents, and generar must refuse a CAF
// whose authorization is not the one the SII signed.
import { describe, expect, it } from "vitest";
import { certificateParts } from "../../src/certificates/certificate.ts";
import { parseCertificateCredential, type SigningCredential } from "../../src/certificates/credentials.ts";
import { sha1Base64, signatureElement, signedInfo } from "../../src/dte/sign/xmldsig.ts";
import { canonicalize } from "../../src/dte/verify/c14n.ts";
import { childElements, parseXml } from "../../src/dte/xml/parse.ts";
import { base64ToBytes, bytesToBase64 } from "../../src/lib/encoding.ts";
import { decodeLatin1, encodeLatin1 } from "../../src/lib/latin1.ts";
import { Granted } from "../../src/routes/caf/solicitar.ts";
import { Normalized } from "../../src/routes/documentos/formatos-json.ts";
import { Verified } from "../../src/routes/envios/verificar.ts";
import { EXAMPLE_ISSUER } from "../../src/routes/example-documents.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { buildCaf } from "../../src/sandbox/folios-caf.ts";
import { answerOf, errorOf, valueAt } from "../support/answers.ts";
import { postJson, probeApp, tokenFor } from "../support/app.ts";
import { makeCertificate } from "../support/certificates.ts";
import { signedDte, signedEnvelope } from "../support/envelope.ts";

const VERIFICAR = "/api/v1/platform/dte/envios/verificar";
const FORMATOS = "/api/v1/platform/dte/formatos/json";
const GENERAR = "/api/v1/platform/dte/documentos/generar";
const COMPANY = "76192083-9";
const SII = "http://www.sii.cl/SiiDte";
const certOf = (rut: "11111111-1" | "22222222-2") => ({
  "cert-data": SANDBOX_TAXPAYER_CERTS[rut].certPem,
  "pkey-data": SANDBOX_TAXPAYER_CERTS[rut].keyPem,
});

async function setup() {
  const t = probeApp();
  const token = await tokenFor(t.deps, { scopes: ["sii:read", "sii:write"] });
  const post = (path: string, body: unknown) => postJson(t.app, token.secret, path, body);
  const juana = await parseCertificateCredential(certOf("11111111-1"), new Date());
  const caf = await buildCaf({ rut: COMPANY, razonSocial: "COMERCIAL SANDBOX SPA", tipo: 33, desde: 1, hasta: 100, fecha: "2026-11-01" });
  return { post, juana, caf };
}
type Post = Awaited<ReturnType<typeof setup>>["post"];

/** The file's bytes in the encoding it declares (none: UTF-8). */
const base64 = (xml: string) => bytesToBase64(xml.includes("ISO-8859-1") ? encodeLatin1(xml) : new TextEncoder().encode(xml));
async function verify(post: Post, xml: string) {
  const res = await post(VERIFICAR, { xml: base64(xml) });
  return (await answerOf(res, Verified)).data;
}
/** What formatos/json presents of the first document: its total and receiver. */
async function presented(post: Post, xml: string): Promise<{ total: unknown; receptor: unknown } | null> {
  const res = await post(FORMATOS, { xml: base64(xml) });
  if (res.status !== 200) return null;
  const { data } = await answerOf(res, Normalized);
  const dte = "documentos" in data ? data.documentos[0]?.dte : undefined;
  return { total: valueAt(dte, "Encabezado", "Totales", "MntTotal"), receptor: valueAt(dte, "Encabezado", "Receptor", "RUTRecep") };
}

const documentoOf = (dte: string) => /<Documento[\s\S]*<\/Documento>/.exec(dte)?.[0] ?? "";
/** The genuine document with another total and receiver, its TED's DD edited to match (FRMT left as it was). */
const edited = (documento: string) => documento.replaceAll("11900", "1").replaceAll("22222222-2", "99999999-9");

/** A Documento signed again as a DTE by `signer` (the attacker holds a certificate, not the issuer's CAF). */
async function resigned(signer: SigningCredential, documento: string): Promise<string> {
  const unsigned = `<DTE xmlns="${SII}" version="1.0">${documento}</DTE>`;
  const apex = childElements(parseXml(unsigned).root)[0]!;
  const id = /ID="([^"]+)"/.exec(documento)?.[1] ?? "";
  const digest = await sha1Base64(canonicalize(apex, { mode: "inclusive", inherited: new Map([["", SII]]) }));
  return unsigned.replace("</DTE>", `${await signatureElement(signer, signedInfo(`#${id}`, digest))}</DTE>`);
}

describe("signature wrapping", () => {
  it("a genuine Documento hidden in an <Ext> before an edited one with its ID does not verify", async () => {
    const { post, juana, caf } = await setup();
    const dte = await signedDte(juana, COMPANY, { tipo: 33, folio: 7, receptor: "22222222-2", total: 11_900, caf });
    const genuine = documentoOf(dte);
    const wrapped = dte.replace(genuine, `<Ext>${genuine}</Ext>${edited(genuine)}`);
    const data = await verify(post, wrapped);
    expect(data.valido).toBe(false);
    expect(data.documentos[0]?.firma).toMatchObject({ valido: false, motivo: expect.stringMatching(/2 elements carry the ID|wrapping/) });
  });

  it("a genuine Documento in the signature's Object, the edited one after it, does not verify", async () => {
    const { post, juana, caf } = await setup();
    const dte = await signedDte(juana, COMPANY, { tipo: 33, folio: 8, receptor: "22222222-2", total: 11_900, caf });
    const genuine = documentoOf(dte);
    const signature = /<Signature[\s\S]*<\/Signature>/.exec(dte)?.[0] ?? "";
    const wrapped = dte
      .replace(genuine, "")
      .replace(signature, `${signature.replace("</Signature>", `<Object>${genuine}</Object></Signature>`)}${edited(genuine)}`);
    const data = await verify(post, wrapped);
    expect(data.valido).toBe(false);
    expect(data.documentos[0]?.firma.valido).toBe(false);
    // Without the edited copy's ID, the signature covers an element that is not the DTE's Documento.
    const withoutId = wrapped.replace(/(<\/Signature>)<Documento ID="[^"]+"/, "$1<Documento");
    const data2 = await verify(post, withoutId);
    expect(data2.documentos[0]?.firma).toMatchObject({ valido: false });
  });

  it("what verificar calls valid is exactly what formatos/json presents (every wrapping shape)", async () => {
    const { post, juana, caf } = await setup();
    const dte = await signedDte(juana, COMPANY, { tipo: 33, folio: 9, receptor: "22222222-2", total: 11_900, caf });
    const genuine = documentoOf(dte);
    const signature = /<Signature[\s\S]*<\/Signature>/.exec(dte)?.[0] ?? "";
    // Every combination of the wrapping shapes (where the genuine Documento hides, what stands in its
    // place, with or without its ID, the hidden copy commented out or not): 40 cases, all run.
    let valid = 0;
    for (const hideIn of ["none", "ext", "object", "after", "docPersonalizado"])
      for (const editedFirst of [true, false])
        for (const keepId of [true, false])
          for (const comment of [true, false]) {
            const forged = keepId ? edited(genuine) : edited(genuine).replace(/ ID="[^"]+"/, "");
            const hidden = comment ? `<!--${genuine}-->` : genuine;
            const ext = `<Ext>${hidden}</Ext>`;
            const body =
              hideIn === "none"
                ? `${genuine}${signature}`
                : hideIn === "ext"
                  ? editedFirst
                    ? `${forged}${ext}${signature}`
                    : `${ext}${forged}${signature}`
                  : hideIn === "object"
                    ? `${forged}${signature.replace("</Signature>", `<Object>${hidden}</Object></Signature>`)}`
                    : hideIn === "after"
                      ? `${signature}${forged}${ext}`
                      : `${forged}${signature}<DocPersonalizado>${hidden}</DocPersonalizado>`;
            const xml = dte.replace(`${genuine}${signature}`, body);
            const data = await verify(post, xml);
            if (!data.valido) continue;
            valid++;
            expect(await presented(post, xml), JSON.stringify({ hideIn, editedFirst, keepId, comment })).toEqual({
              total: 11_900,
              receptor: "22222222-2",
            });
          }
    // The untouched document (its 8 spellings of "none") and nothing else verifies.
    expect(valid).toBe(8);
  });

  it("an envelope with a second, unsigned DTE reusing a signed document's ID and folio is not valid, and says so", async () => {
    const { post, juana, caf } = await setup();
    const doc = { tipo: 33, folio: 10, receptor: "22222222-2", total: 11_900, caf };
    const xml = await signedEnvelope(juana, COMPANY, [doc, doc], {
      tamperDocument: (dte, i) => (i === 1 ? `<DTE xmlns="${SII}" version="1.0">${edited(documentoOf(dte))}</DTE>` : dte),
    });
    const data = await verify(post, decodeLatin1(xml));
    expect(data.valido).toBe(false);
    expect(data.sobre?.firma.valido).toBe(true);
    expect(data.documentos.map((d) => d.firma.valido)).toEqual([false, false]);
    expect(data.documentos[1]?.firma.motivo).toMatch(/not signed/);
    expect(data.documentos[0]?.coherencia).toMatchObject({
      valido: false,
      motivo: expect.stringMatching(/folio 10.*more than once|appears 2 times/),
    });
  });
});

describe("comments are never data", () => {
  it("a genuine TED in a comment before an edited one does not make the stamp verify", async () => {
    const { post, juana, caf } = await setup();
    const dte = await signedDte(juana, COMPANY, { tipo: 33, folio: 11, receptor: "22222222-2", total: 11_900, caf });
    const genuine = documentoOf(dte);
    const ted = /<TED[\s\S]*<\/TED>/.exec(genuine)?.[0] ?? "";
    const forgedDoc = edited(genuine).replace(/<TED/, `<!--${ted}--><TED`);
    const data = await verify(post, await resigned(juana, forgedDoc));
    expect(data.documentos[0]?.firma.valido).toBe(true);
    expect(data.documentos[0]?.timbre.valido).toBe(false);
    expect(data.valido).toBe(false);
    // A comment inside the TED is refused outright.
    const inside = genuine.replace("<DD>", "<!--x--><DD>");
    const data2 = await verify(post, await resigned(juana, inside));
    expect(data2.documentos[0]?.timbre).toMatchObject({ valido: false, motivo: expect.stringMatching(/comment/) });
  });
});

describe("the signer's key", () => {
  it("a self-signed certificate of the very key that signed does not establish a signer: the signature is invalid", async () => {
    const { post, juana, caf } = await setup();
    const dte = await signedDte(juana, COMPANY, { tipo: 33, folio: 13, receptor: "22222222-2", total: 11_900, caf });
    const pem = (text: string, label: string) => base64ToBytes(text.replace(new RegExp(`-----(BEGIN|END) ${label}-----|\\s+`, "g"), ""));
    const privateKey = await crypto.subtle.importKey(
      "pkcs8",
      pem(SANDBOX_TAXPAYER_CERTS["11111111-1"].keyPem, "PRIVATE KEY"),
      { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
      false,
      ["sign"],
    );
    const spki = certificateParts(juana.certificateDer)?.spki as Uint8Array<ArrayBuffer>;
    const selfSigned = await makeCertificate({
      name: "Juana Pérez Soto",
      key: { keys: { privateKey, publicKey: privateKey }, spki, kind: "rsa" },
    });
    const forged = dte.replace(
      /<X509Certificate>[^<]+<\/X509Certificate>/,
      `<X509Certificate>${bytesToBase64(selfSigned.der)}</X509Certificate>`,
    );
    const data = await verify(post, forged);
    expect(data.documentos[0]?.firmante).toMatchObject({ confianza: "autofirmado" });
    expect(data.documentos[0]?.firma).toMatchObject({ valido: false, motivo: expect.stringMatching(/self-signed/) });
    expect(data.documentos[0]?.timbre.valido).toBe(true);
    expect(data.valido).toBe(false);
  });

  it("a certificate of one key beside an RSAKeyValue of the key that signed is invalid", async () => {
    const { post, juana, caf } = await setup();
    const dte = await signedDte(juana, COMPANY, { tipo: 33, folio: 12, receptor: "22222222-2", total: 11_900, caf });
    const pedro = await parseCertificateCredential(certOf("22222222-2"), new Date());
    const pedroBase64 = pedro.certificatePem.replace(/-----[^-]+-----|\s+/g, "");
    const swapped = dte.replace(/<X509Certificate>[^<]+<\/X509Certificate>/, `<X509Certificate>${pedroBase64}</X509Certificate>`);
    const data = await verify(post, swapped);
    expect(data.documentos[0]?.firma).toMatchObject({ valido: false, motivo: expect.stringMatching(/RSAKeyValue key/) });
    expect(data.valido).toBe(false);
    // The certificate that signed, beside another key's RSAKeyValue: two keys, no answer to who signed.
    const otherKey = dte.replace(/<Modulus>[^<]+<\/Modulus>/, `<Modulus>${pedro.modulusBase64}</Modulus>`);
    const data2 = await verify(post, otherKey);
    expect(data2.documentos[0]?.firma).toMatchObject({
      valido: false,
      motivo: expect.stringMatching(/not the key of its X509Certificate/),
    });
  });
});

describe("forged CAFs do not sign", () => {
  it("generar refuses a CAF whose DA was edited while the genuine DA sits in a comment", async () => {
    const { post } = await setup();
    const res = await post(`/api/v1/sii/dte/caf/solicitar/${COMPANY}/33/5`, { auth: { cert: certOf("11111111-1") } });
    const { data } = await answerOf(res, Granted);
    const genuine = decodeLatin1(base64ToBytes(data.caf_xml));
    const da = /<DA>[\s\S]*?<\/DA>/.exec(genuine)?.[0] ?? "";
    const forgedDa = da.replace(/<H>\d+<\/H>/, "<H>1000000</H>");
    const forged = genuine.replace(da, forgedDa).replace("<AUTORIZACION>", `<AUTORIZACION><!--${da}-->`);
    const request = (caf: string, folio: number) => ({
      auth: { cert: certOf("11111111-1") },
      caf: base64(caf),
      resolucion: { fecha: "2014-08-22", numero: 80 },
      dte: {
        Encabezado: {
          IdDoc: { TipoDTE: 33, Folio: folio },
          Emisor: EXAMPLE_ISSUER,
          Receptor: { RUTRecep: "22222222-2", RznSocRecep: "Pedro Pérez", GiroRecep: "Servicios", DirRecep: "Calle 1", CmnaRecep: "Ñuñoa" },
        },
        Detalle: { NmbItem: "Asesoría", QtyItem: 1, PrcItem: 1000 },
      },
    });
    const refused = await post(GENERAR, request(forged, 900_000));
    expect(refused.status).toBe(400);
    expect((await errorOf(refused)).message).toMatch(/caf.*comment/);
    // A second DA, or a processing instruction, is refused the same way.
    const twice = await post(GENERAR, request(genuine.replace(da, `${da}${forgedDa}`), 900_000));
    expect((await errorOf(twice)).message).toMatch(/2 DA elements/);
    const instruction = await post(GENERAR, request(genuine.replace("<AUTORIZACION>", "<AUTORIZACION><?x y?>"), data.folio_inicial));
    expect((await errorOf(instruction)).message).toMatch(/processing instruction/);
    // The genuine file still signs.
    expect((await post(GENERAR, request(genuine, data.folio_inicial))).status).toBe(200);
  });
});
