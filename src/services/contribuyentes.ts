// The taxpayer operations, with no HTTP: a taxpayer's private file in Mi SII (src/sii/contribuyentes.ts),
// read in the certificate's web session, as the taxpayer or as the electronic representative acting for it.
import type { SigningCredential } from "../certificates/credentials.ts";
import type { Caller } from "../platform/caller.ts";
import { ApiError } from "../platform/errors.ts";
import { taxpayerData, taxpayerPage } from "../sii/contribuyentes.ts";
import type { CookieJar } from "../sii/cookies.ts";
import type { Ambiente } from "../sii/hosts.ts";
import type { SiiContext } from "../sii/http.ts";
import { siiServicesFor } from "./sii-context.ts";

/** Who reads, for whom: the certificate, its ambiente, and the taxpayer whose file is read. */
export interface TaxpayerRead {
  credential: SigningCredential;
  ambiente: Ambiente;
  contribuyente: string;
}

/** `read` in the certificate's session acting for the taxpayer. */
async function asTaxpayer<T>(caller: Caller, who: TaxpayerRead, read: (ctx: SiiContext, jar: CookieJar) => Promise<T>): Promise<T> {
  const { ctx, sessions } = await siiServicesFor(caller);
  return sessions.withCertificate(who.credential, who.ambiente, (jar) => read(ctx, jar), who.contribuyente);
}

/** The taxpayer's data as Mi SII holds it; 403 `AUTH_ERROR` when the session shows another taxpayer. */
export async function taxpayerDataOf(caller: Caller, who: TaxpayerRead) {
  const data = await asTaxpayer(caller, who, taxpayerData);
  if (data.rut !== who.contribuyente) {
    throw new ApiError(403, "AUTH_ERROR", `The certificate's session shows ${data.rut}, not ${who.contribuyente}`);
  }
  return data;
}

/** Mi SII's home page of the taxpayer as received (ISO-8859-1 text). */
export function taxpayerPageOf(caller: Caller, who: TaxpayerRead): Promise<string> {
  return asTaxpayer(caller, who, taxpayerPage);
}
