// The stamp of a received document (docs/dte-engine.md §2): the TED's FRMT must verify over the
// flattened DD with the CAF's public key, the CAF's FRMA over the flattened DA with the SII's key
// for its IDK, and the DD must say what the document says. Signatures are checked over the DD/DA
// text exactly as the file has it, whitespace between tags removed, in ISO-8859-1 (what the
// signers sign), and over the canonical form as a second reading.
import { base64ToBytes, bytesToBase64Url } from "../../lib/encoding.ts";
import { encodeLatin1 } from "../../lib/latin1.ts";
import { childElements, childText, findChild, localName, type XmlElement } from "../xml/parse.ts";
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

/** `<name …>…</name>` as it appears in `raw`, whitespace between tags removed. */
export function flattenedRaw(raw: string, name: string): string | null {
  const found = new RegExp(`<${name}[\\s>][\\s\\S]*?</${name}>`).exec(raw)?.[0];
  return found ? found.replace(/>\s+</g, "><") : null;
}

export async function verifyRsaSha1(key: RsaPublicKey, signatureBase64: string, texts: (string | null)[]): Promise<boolean> {
  let signature: Uint8Array<ArrayBuffer>;
  let cryptoKey: CryptoKey;
  try {
    signature = base64ToBytes(signatureBase64.replace(/\s+/g, ""));
    cryptoKey = await crypto.subtle.importKey(
      "jwk",
      { kty: "RSA", n: bytesToBase64Url(key.modulus), e: bytesToBase64Url(key.exponent), ext: true },
      { name: "RSASSA-PKCS1-v1_5", hash: "SHA-1" },
      false,
      ["verify"],
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

/**
 * Checks the TED of one DTE. `raw` is the DTE's own text as in the file (for the exact signed
 * bytes); `cafKeys` are the keys trusted to sign CAFs, by IDK.
 */
export async function verifyStamp(dte: XmlElement, raw: string, cafKeys: ReadonlyMap<string, RsaPublicKey>): Promise<StampChecks> {
  const documento = childElements(dte).find((c) => ["Documento", "Liquidacion", "Exportaciones"].includes(localName(c.name)));
  const ted = findChild(documento, "TED");
  if (!ted) {
    const missing = fail("the document has no TED (timbre electrónico)");
    return { timbre: missing, caf: missing, coherencia: missing };
  }
  const dd = findChild(ted, "DD");
  const da = findChild(dd, "CAF", "DA");
  const tedRaw = /<TED[\s>][\s\S]*?<\/TED>/.exec(raw)?.[0] ?? "";
  const readings = (element: XmlElement | undefined, name: string) => [
    flattenedRaw(tedRaw, name),
    element ? canonicalize(element, { mode: "no-namespaces" }).replace(/>\s+</g, "><") : null,
  ];

  const caf = await (async (): Promise<Check> => {
    if (!da) return fail("the TED carries no CAF");
    const idk = childText(da, "IDK");
    const key = cafKeys.get(idk);
    if (!key) return fail(`the CAF was signed with IDK ${idk || "(none)"}, not a key of the SII`);
    const ok = await verifyRsaSha1(key, childText(dd, "CAF", "FRMA"), readings(da, "DA"));
    return ok ? pass : fail(`the CAF's signature (FRMA) does not verify with the SII's key ${idk}`);
  })();

  const timbre = await (async (): Promise<Check> => {
    const modulus = childText(da, "RSAPK", "M");
    const exponent = childText(da, "RSAPK", "E");
    if (!dd || !modulus || !exponent) return fail("the TED has no DD or its CAF no public key (RSAPK)");
    let key: RsaPublicKey;
    try {
      key = { modulus: base64ToBytes(modulus.replace(/\s+/g, "")), exponent: base64ToBytes(exponent.replace(/\s+/g, "")) };
    } catch {
      return fail("the CAF's public key is not base64");
    }
    const ok = await verifyRsaSha1(key, childText(ted, "FRMT"), readings(dd, "DD"));
    return ok
      ? pass
      : fail("the TED's signature (FRMT) does not verify with the CAF's key: the stamp was altered or not made with this CAF");
  })();

  return { timbre, caf, coherencia: coherence(documento, dd, da) };
}

/** The DD and the CAF must say what the document says. */
function coherence(documento: XmlElement | undefined, dd: XmlElement | undefined, da: XmlElement | undefined): Check {
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
  if (da && !same(childText(da, "RE"), childText(encabezado, "Emisor", "RUTEmisor")))
    problems.push(`the CAF is for ${childText(da, "RE")}, not the issuer`);
  if (da && childText(da, "TD") !== childText(encabezado, "IdDoc", "TipoDTE")) problems.push(`the CAF is for type ${childText(da, "TD")}`);
  if (da && !(folio >= desde && folio <= hasta)) problems.push(`folio ${folio} is outside the CAF's range ${desde}–${hasta}`);
  return problems.length ? fail(problems.join("; ")) : pass;
}
