// The SII sessions of one request, set up once per request by the route layer
// (src/services/sii-context.ts `siiServicesFor`): the RUT + clave web session, the certificate's web
// session (the holder's own or as a represented taxpayer), and the DTE/boleta token. Sessions are
// per gateway account, sealed in the session store, take turns per session and taxpayer within a
// bounded wait and are paced per taxpayer (src/sii/sessions.ts, src/sii/turns.ts);
// tokens are cached per account and certificate (src/sii/token.ts).
import type { SigningCredential } from "../certificates/credentials.ts";
import type { SessionStore } from "../ports/stores.ts";
import type { CookieJar } from "./cookies.ts";
import type { Ambiente } from "./hosts.ts";
import type { SiiContext } from "./http.ts";
import { certificateLogin, claveLogin } from "./login.ts";
import { type SessionEnv, withWebSession } from "./sessions.ts";
import { withSoapToken } from "./token.ts";

/** What the sessions of one request depend on. */
export interface SessionServiceEnv {
  ctx: SiiContext;
  sessions: SessionStore;
  secretKey: string;
  now: () => Date;
  /** Least time between two SII calls for one taxpayer. */
  pacingMs: number;
  /** Longest a call waits for its turn and for pacing before it is refused (429). */
  waitMs: number;
  /** The calling gateway account: sessions and tokens are never shared between accounts. */
  account: () => string;
}

export interface SiiSessions {
  /** Runs `use` in the taxpayer's RUT + clave session for this account (a wrong clave never reuses one). */
  withClave<T>(credential: { rut: string; clave: string }, use: (jar: CookieJar) => Promise<T>, referencia?: string): Promise<T>;
  /** Runs `use` in the certificate holder's SII web session for this account, or as `actingFor` when given. */
  withCertificate<T>(
    credential: SigningCredential,
    ambiente: Ambiente,
    use: (jar: CookieJar) => Promise<T>,
    actingFor?: string,
  ): Promise<T>;
  /** Runs `use` with the SII's token for this certificate: DTE (SOAP) or boleta (REST); cached, renewed once when refused. */
  withDteToken<T>(
    credential: SigningCredential,
    ambiente: Ambiente,
    use: (token: string) => Promise<T>,
    service?: "dte" | "boleta",
  ): Promise<T>;
}

export function sessionService(env: SessionServiceEnv): SiiSessions {
  const { ctx } = env;
  const { sessions, secretKey, now, pacingMs, waitMs } = env;
  const web: SessionEnv = { ctx, sessions, secretKey, now, pacingMs, waitMs };
  const millis = () => env.now().getTime();
  return {
    withClave(credential, use, referencia) {
      const owner = {
        account: env.account(),
        rut: credential.rut,
        ambiente: "0" as const,
        kind: "clave" as const,
        proof: credential.clave,
      };
      return withWebSession(web, owner, () => claveLogin(ctx, credential, referencia, millis), use);
    },
    withCertificate(credential, ambiente, use, actingFor) {
      // A session as a represented taxpayer is a different session from the holder's own.
      const rut = actingFor ?? credential.rut;
      const owner = { account: env.account(), rut, ambiente, kind: "cert" as const, proof: `${credential.fingerprint}:${credential.rut}` };
      const certificate = { certificatePem: credential.certificatePem, privateKeyPem: credential.privateKeyPkcs8Pem };
      const login = () =>
        certificateLogin(ctx, certificate, { now: millis, actingFor: actingFor === credential.rut ? undefined : actingFor });
      return withWebSession(web, owner, login, use);
    },
    withDteToken(credential, ambiente, use, service = "dte") {
      const owner = { account: env.account(), fingerprint: credential.fingerprint, signer: credential };
      return withSoapToken(ctx, owner, ambiente, millis, use, service);
    },
  };
}
