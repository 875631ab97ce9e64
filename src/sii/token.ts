// The SII's SOAP token (docs/sii-services.md §2.1): seed → signed seed → token. Tokens are cached per
// account, credential and ambiente for less than the SII keeps them, and dropped early when the
// SII says it no longer knows one; then the call is made once more with a fresh token.
import { signSeed } from "../dte/sign/seed.ts";
import type { XmlSigner } from "../dte/sign/xmldsig.ts";
import { ApiError } from "../lib/api-error.ts";
import { elementText } from "../lib/xml.ts";
import type { SiiTransport } from "../ports/transport.ts";
import { type Ambiente, siiHosts } from "./hosts.ts";
import { pageText, type SiiContext, siiFetch } from "./http.ts";
import { soapCall } from "./soap.ts";

/** The SII keeps a token about an hour; reuse ours for less. */
export const TOKEN_REUSE_MS = 50 * 60 * 1000;

export interface TokenOwner {
  /** The gateway account: tokens are never shared between accounts. */
  account: string;
  /** Identifies the credential (certificate fingerprint). */
  fingerprint: string;
  signer: XmlSigner;
}

/** Raised by SII clients when the SII says a token is unknown or expired (`TOKEN NO EXISTE`, …). */
export class TokenRejected extends Error {
  readonly siiMessage: string;

  constructor(siiMessage: string) {
    super(`SII rejected the token: ${siiMessage}`);
    this.siiMessage = siiMessage;
  }
}

const caches = new WeakMap<SiiTransport, Map<string, { token: string; until: number }>>();

function cacheFor(transport: SiiTransport) {
  let cache = caches.get(transport);
  if (!cache) {
    cache = new Map();
    caches.set(transport, cache);
  }
  return cache;
}

/** Seed states and answers of getSeed/getToken that mean the request itself was refused. */
function refused(step: string, estado: string, glosa: string | null): ApiError {
  const certificate = estado === "10" || estado === "11" || estado === "12";
  return new ApiError(
    certificate ? 400 : 502,
    certificate ? "AUTH_ERROR" : "SII_GATEWAY_ERROR",
    `The SII refused the ${step}: ${glosa ?? `ESTADO ${estado}`}`,
    {
      details: { service: step, sii_estado: estado, sii_message: glosa },
    },
  );
}

export async function requestToken(ctx: SiiContext, signer: XmlSigner, ambiente: Ambiente): Promise<string> {
  const host = siiHosts(ambiente).dte;
  const seed = await soapCall(ctx, { url: `https://${host}/DTEWS/CrSeed.jws`, operation: "getSeed", service: "seed", read: true });
  const semilla = /<SEMILLA>(\d+)<\/SEMILLA>/.exec(seed.xml)?.[1];
  if (seed.estado !== "00" || !semilla) throw refused("seed", seed.estado, seed.glosa);
  const answer = await soapCall(ctx, {
    url: `https://${host}/DTEWS/GetTokenFromSeed.jws`,
    operation: "getToken",
    params: [["pszXml", await signSeed(semilla, signer)]],
    service: "token",
    read: false,
  });
  const token = /<TOKEN>([^<]+)<\/TOKEN>/.exec(answer.xml)?.[1];
  if (answer.estado !== "00" || !token) throw refused("token", answer.estado, answer.glosa);
  return token;
}

/** The boleta service's own token (docs/sii-services.md §2.2): the same signed seed, over plain REST. */
export async function requestBoletaToken(ctx: SiiContext, signer: XmlSigner, ambiente: Ambiente): Promise<string> {
  const base = `https://${siiHosts(ambiente).boletaApi}/recursos/v1`;
  const read = (text: string) => ({ estado: elementText(text, "ESTADO") ?? "", glosa: elementText(text, "GLOSA"), text });
  const seed = read(
    (
      await siiFetch(ctx, new Request(`${base}/boleta.electronica.semilla`, { headers: { accept: "application/xml" } }), {
        service: "boleta_seed",
        read: true,
      })
    ).text,
  );
  const semilla = /<SEMILLA>(\d+)<\/SEMILLA>/.exec(seed.text)?.[1];
  if (seed.estado !== "00" || !semilla) throw refused("boleta_seed", seed.estado, seed.glosa ?? pageText(seed.text));
  const request = new Request(`${base}/boleta.electronica.token`, {
    method: "POST",
    headers: { "content-type": "application/xml", accept: "application/xml" },
    body: await signSeed(semilla, signer),
  });
  const answer = read((await siiFetch(ctx, request, { service: "boleta_token", read: false })).text);
  const token = /<TOKEN>([^<]+)<\/TOKEN>/.exec(answer.text)?.[1];
  if (answer.estado !== "00" || !token) throw refused("boleta_token", answer.estado, answer.glosa ?? pageText(answer.text));
  return token;
}

/**
 * Runs `use` with a cached or fresh token of the DTE (SOAP) or the boleta (REST) service; when the
 * SII rejects the token, once more with a new one.
 */
export async function withSoapToken<T>(
  ctx: SiiContext,
  owner: TokenOwner,
  ambiente: Ambiente,
  now: () => number,
  use: (token: string) => Promise<T>,
  service: "dte" | "boleta" = "dte",
): Promise<T> {
  const cache = cacheFor(ctx.transport);
  const key = `${owner.account}\u0000${owner.fingerprint}\u0000${ambiente}\u0000${service}`;
  const fresh = async () => {
    const token = await (service === "boleta" ? requestBoletaToken : requestToken)(ctx, owner.signer, ambiente);
    cache.set(key, { token, until: now() + TOKEN_REUSE_MS });
    return token;
  };
  const cached = cache.get(key);
  const token = cached && cached.until > now() ? cached.token : await fresh();
  try {
    return await use(token);
  } catch (err) {
    if (!(err instanceof TokenRejected)) throw err;
    cache.delete(key);
    return use(await fresh());
  }
}
