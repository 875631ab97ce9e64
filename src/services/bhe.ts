// The BHE (boletas de honorarios electrónicas) operations, with no HTTP: an issued slip e-mailed
// again by the SII's own resend form, inside the taxpayer's clave session (src/sii/bhe.ts).
import type { Caller } from "../platform/caller.ts";
import { type BheResent, resendBhe } from "../sii/bhe.ts";
import type { ClaveCredential } from "../sii/login.ts";
import { siiServicesFor } from "./sii-context.ts";

/** Has the SII mail the issued BHE `codigo` of `pass`'s taxpayer to `email`; the SII's confirmation. */
export async function resendIssuedBhe(caller: Caller, pass: ClaveCredential, codigo: string, email: string): Promise<BheResent> {
  const { ctx, sessions } = await siiServicesFor(caller);
  return sessions.withClave(pass, (jar) => resendBhe(ctx, jar, { codigo, email }));
}
