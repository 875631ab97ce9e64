// The stamp of a received document (docs/dte-engine.md §2): the TED's FRMT must verify over the
// flattened DD with the CAF's public key, the CAF's FRMA over the flattened DA with the SII's key
// for its IDK, and the DD must say what the document says. Everything is read from the parsed
// tree of the document being reported on: its one TED, the TED's one DD, the DD's one CAF/DA. The
// signatures are checked over the text of those very nodes exactly as the file has it, whitespace
// between tags removed, in ISO-8859-1 (what the signers sign), and over their canonical form as a
// second reading; a comment or processing instruction inside a stamp makes it invalid (a signed
// text never holds one, and a reader could take one for data).
import { base64ToBytes, bytesToBase64Url } from "../../lib/encoding.ts";
import { encodeLatin1 } from "../../lib/latin1.ts";
import { KEPT_TEXT_CHARS, remembered } from "../../lib/remembered.ts";
import {
  childElements,
  childText,
  findChild,
  localName,
  markupInside,
  onlyChild,
  sourceOf,
  textContent,
  type XmlDocument,
  type XmlElement,
} from "../xml/parse.ts";
import { canonicalize } from "./c14n.ts";

export interface Check {
  valido: boolean;
  motivo: string | null;
}

/** An RSA public key as its modulus and exponent, big-endian. */
export interface RsaPublicKey {
  modulus: Uint8Array;
  exponent: Uint8Array;
}

const hex = (text: string) => Uint8Array.from(text.match(/../g) ?? [], (byte) => Number.parseInt(byte, 16));
const F4 = Uint8Array.of(1, 0, 1);

/**
 * The SII's CAF-signing keys by IDK, from its published certificates `100.cer` (certification)
 * and `300.cer` (production): 512-bit RSA, exponent 65537.
 */
export const SII_CAF_KEYS: ReadonlyMap<string, RsaPublicKey> = new Map([
  [
    "100",
    {
      modulus: hex(
        "C8FBF00DCB21A55000A585522C5DE528A73E0CE16CC03AB1E5EA7DE4B2A28111E352FAEF8DCB7D51E349ABD4B105DCD4F67CF9E13115058C9F0154291B8C7153",
      ),
      exponent: F4,
    },
  ],
  [
    "300",
    {
      modulus: hex(
        "9DEEBFC5EEBD96DF4C7CF53F1BFA15D85D73EF04C6718F8C07B3F785EFEE75E7B4EF5A3AE079C3265A900E45F602890AF6FB4FAFA2B8D6938F7F011C3585B335",
      ),
      exponent: F4,
    },
  ],
]);

const pass: Check = { valido: true, motivo: null };
const fail = (motivo: string): Check => ({ valido: false, motivo });

/** The element's text as the file has it, whitespace between tags removed: what the SII and the CAF's key sign. */
export function flattenedSource(doc: Pick<XmlDocument, "source">, element: XmlElement): string {
  return sourceOf(doc, element).replace(/>\s+</g, "><");
}

/** A CAF's key, imported once by its JWK text (a CAF stamps every document of its range). */
const importedKey = remembered(
  64,
  (jwk: string) => crypto.subtle.importKey("jwk", JSON.parse(jwk), { name: "RSASSA-PKCS1-v1_5", hash: "SHA-1" }, false, ["verify"]),
  (jwk) => jwk.length <= KEPT_TEXT_CHARS,
);

export async function verifyRsaSha1(key: RsaPublicKey, signatureBase64: string, texts: (string | null)[]): Promise<boolean> {
  let signature: Uint8Array<ArrayBuffer>;
  let cryptoKey: CryptoKey;
  try {
    signature = base64ToBytes(signatureBase64.replace(/\s+/g, ""));
    cryptoKey = await importedKey(
      JSON.stringify({ kty: "RSA", n: bytesToBase64Url(key.modulus), e: bytesToBase64Url(key.exponent), ext: true }),
    );
  } catch {
    return false;
  }
  for (const candidate of new Set(texts)) {
    if (candidate !== null && (await crypto.subtle.verify("RSASSA-PKCS1-v1_5", cryptoKey, signature, encodeLatin1(candidate)))) return true;
  }
  return false;
}

export interface StampChecks {
  timbre: Check;
  caf: Check;
  coherencia: Check;
}

/** The TED of a document, its DD and the DD's CAF/DA, each the one of its name; or why not. */
function stampParts(documento: XmlElement): { ted: XmlElement; dd: XmlElement; da: XmlElement; frma: XmlElement } | string {
  const ted = onlyChild(documento, "TED");
  if (typeof ted === "string") return `the document ${ted === "has no TED" ? "has no TED (timbre electrónico)" : ted.slice(4)}`;
  const markup = markupInside(ted);
  if (markup) return `the TED holds a ${markup.type === "comment" ? "comment" : "processing instruction"}, which a stamp never has`;
  const dd = onlyChild(ted, "DD");
  if (typeof dd === "string") return `the TED ${dd}`;
  const caf = onlyChild(dd, "CAF");
  if (typeof caf === "string") return `the TED's DD ${caf}`;
  const da = onlyChild(caf, "DA");
  if (typeof da === "string") return `the TED's CAF ${da}`;
  const frma = onlyChild(caf, "FRMA");
  if (typeof frma === "string") return `the TED's CAF ${frma}`;
  return { ted, dd, da, frma };
}

/**
 * Checks the TED of one document (`documento`: the DTE's Documento, Liquidacion or Exportaciones,
 * the node the caller reports on) of the parsed `doc`; `cafKeys` are the keys trusted to sign CAFs,
 * by IDK.
 */
export async function verifyStamp(
  doc: Pick<XmlDocument, "source">,
  documento: XmlElement,
  cafKeys: ReadonlyMap<string, RsaPublicKey>,
): Promise<StampChecks> {
  const parts = stampParts(documento);
  if (typeof parts === "string") {
    const missing = fail(parts);
    return { timbre: missing, caf: missing, coherencia: missing };
  }
  const { ted, dd, da, frma } = parts;
  const readings = (element: XmlElement) => [
    flattenedSource(doc, element),
    canonicalize(element, { mode: "no-namespaces" }).replace(/>\s+</g, "><"),
  ];

  const caf = await (async (): Promise<Check> => {
    const idk = childText(da, "IDK");
    const key = cafKeys.get(idk);
    if (!key) return fail(`the CAF was signed with IDK ${idk || "(none)"}, not a key of the SII`);
    const ok = await verifyRsaSha1(key, textContent(frma), readings(da));
    return ok ? pass : fail(`the CAF's signature (FRMA) does not verify with the SII's key ${idk}`);
  })();

  const timbre = await (async (): Promise<Check> => {
    const modulus = childText(da, "RSAPK", "M");
    const exponent = childText(da, "RSAPK", "E");
    if (!modulus || !exponent) return fail("the TED's CAF has no public key (RSAPK)");
    const frmt = onlyChild(ted, "FRMT");
    if (typeof frmt === "string") return fail(`the TED ${frmt}`);
    let key: RsaPublicKey;
    try {
      key = { modulus: base64ToBytes(modulus.replace(/\s+/g, "")), exponent: base64ToBytes(exponent.replace(/\s+/g, "")) };
    } catch {
      return fail("the CAF's public key is not base64");
    }
    const ok = await verifyRsaSha1(key, textContent(frmt), readings(dd));
    return ok
      ? pass
      : fail("the TED's signature (FRMT) does not verify with the CAF's key: the stamp was altered or not made with this CAF");
  })();

  return { timbre, caf, coherencia: coherence(documento, dd, da) };
}

/** The DD and the CAF must say what the document says. */
function coherence(documento: XmlElement, dd: XmlElement, da: XmlElement): Check {
  const encabezado = findChild(documento, "Encabezado");
  const firstItem = documento && childElements(documento).find((c) => localName(c.name) === "Detalle");
  const same = (a: string, b: string) => a.toUpperCase() === b.toUpperCase();
  const pairs: [string, string, string][] = [
    ["RE", childText(dd, "RE"), childText(encabezado, "Emisor", "RUTEmisor")],
    ["TD", childText(dd, "TD"), childText(encabezado, "IdDoc", "TipoDTE")],
    ["F", childText(dd, "F"), childText(encabezado, "IdDoc", "Folio")],
    ["FE", childText(dd, "FE"), childText(encabezado, "IdDoc", "FchEmis")],
    ["RR", childText(dd, "RR"), childText(encabezado, "Receptor", "RUTRecep")],
    ["MNT", childText(dd, "MNT"), childText(encabezado, "Totales", "MntTotal")],
  ];
  const wrong = pairs.filter(([, stamped, actual]) => !same(stamped, actual) && Number(stamped) !== Number(actual || Number.NaN));
  const item = childText(firstItem, "NmbItem");
  if (firstItem && !item.startsWith(childText(dd, "IT1").slice(0, 40).trim())) wrong.push(["IT1", childText(dd, "IT1"), item.slice(0, 40)]);
  const folio = Number(childText(encabezado, "IdDoc", "Folio"));
  const desde = Number(childText(da, "RNG", "D"));
  const hasta = Number(childText(da, "RNG", "H"));
  const problems = wrong.map(([field, stamped, actual]) => `TED ${field} is "${stamped}", the document says "${actual}"`);
  if (!same(childText(da, "RE"), childText(encabezado, "Emisor", "RUTEmisor")))
    problems.push(`the CAF is for ${childText(da, "RE")}, not the issuer`);
  if (childText(da, "TD") !== childText(encabezado, "IdDoc", "TipoDTE")) problems.push(`the CAF is for type ${childText(da, "TD")}`);
  if (!(folio >= desde && folio <= hasta)) problems.push(`folio ${folio} is outside the CAF's range ${desde}–${hasta}`);
  return problems.length ? fail(problems.join("; ")) : pass;
}
