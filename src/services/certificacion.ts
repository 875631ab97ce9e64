// The certification operations (docs/sii-services.md §12), with no HTTP: each runs on the SII's
// certification environment ("1") with the certificate of the company's representative, acting
// for the company (src/sii/certificacion.ts, src/sii/certificacion-boleta.ts).
import type { SigningCredential } from "../certificates/credentials.ts";
import type { Caller } from "../platform/caller.ts";
import type { PreviewMarks } from "../platform/preview.ts";
import { applyForCertification, certificationData, certificationProgress, requestTestSet } from "../sii/certificacion.ts";
import { requestBoletaTestSet } from "../sii/certificacion-boleta.ts";
import { parseTestSets } from "../sii/certificacion-set-pruebas.ts";
import type { CookieJar } from "../sii/cookies.ts";
import type { SiiContext } from "../sii/http.ts";
import { siiServicesFor } from "./sii-context.ts";

/** The company in the process and the certificate of the representative acting for it. */
export interface Certifying {
  contribuyente: string;
  credential: SigningCredential;
}

type Use<T> = (ctx: SiiContext, jar: CookieJar) => Promise<T>;

/**
 * The certificate session in the certification environment, acting for the company. Set up before
 * a dry run answers too, so a preview meets the account's proxy as the real call would.
 */
async function certificationSession(caller: Caller, { contribuyente, credential }: Certifying) {
  const { ctx, sessions } = await siiServicesFor(caller);
  return <T>(use: Use<T>) => sessions.withCertificate(credential, "1", (jar) => use(ctx, jar), contribuyente);
}

/** What a dry run's application stands in for: whether the SII took it, and its words. */
export const APPLY_PLACEHOLDERS = ["postulado", "glosa"] as const;
/** What a dry run's test set stands in for: the SII's text and its sets. */
export const TEST_SET_PLACEHOLDERS = ["texto", "sets"] as const;
const preview = (provisionales: readonly string[]): PreviewMarks => ({ provisionales: [...provisionales], estimados: [] });

/** A test set as the SII wrote it, and its cases. */
const testSet = (contribuyente: string, texto: string) => ({ contribuyente, texto, sets: parseTestSets(texto) });
/** A dry run's test set: nothing was requested. */
const noTestSet = (contribuyente: string) => ({ contribuyente, texto: "", sets: [], vista_previa: preview(TEST_SET_PLACEHOLDERS) });

/** What the application carries besides the company and its administrator (the certificate's holder). */
export interface ApplicationForm {
  email: string;
  emailIntercambio?: string;
  software: string;
  documentos: number[];
}

/** Applies the company to the certification process; `dryRun` checks the certificate only and sends nothing. */
export async function applyCompany(caller: Caller, who: Certifying, form: ApplicationForm, dryRun: boolean) {
  const run = await certificationSession(caller, who);
  if (dryRun) return { contribuyente: who.contribuyente, postulado: false, glosa: "", vista_previa: preview(APPLY_PLACEHOLDERS) };
  const application = { contribuyente: who.contribuyente, administrador: who.credential.rut, ...form };
  const { glosa } = await run((ctx, jar) => applyForCertification(ctx, jar, application));
  return { contribuyente: who.contribuyente, postulado: true, glosa };
}

/** A new invoices test set with the optional `sets` the SII's page offers; `dryRun` requests nothing. */
export async function invoiceTestSet(caller: Caller, who: Certifying, sets: string[], dryRun: boolean) {
  const run = await certificationSession(caller, who);
  if (dryRun) return noTestSet(who.contribuyente);
  return testSet(who.contribuyente, await run((ctx, jar) => requestTestSet(ctx, jar, who.contribuyente, sets)));
}

/** The boleta test set, recorded with the software provider's `email`; `dryRun` requests nothing. */
export async function boletaTestSet(caller: Caller, who: Certifying, email: string | undefined, dryRun: boolean) {
  const run = await certificationSession(caller, who);
  if (dryRun) return noTestSet(who.contribuyente);
  const texto = await run((ctx, jar) => requestBoletaTestSet(ctx, jar, who.contribuyente, who.credential.rut, email));
  return testSet(who.contribuyente, texto);
}

/** Each test set's state at the SII. */
export async function applicationProgress(caller: Caller, who: Certifying) {
  const run = await certificationSession(caller, who);
  return { contribuyente: who.contribuyente, sets: await run((ctx, jar) => certificationProgress(ctx, jar, who.contribuyente)) };
}

/** The company's data in the certification environment (its resolution, e-mails, software, state). */
export async function companyData(caller: Caller, who: Certifying) {
  const run = await certificationSession(caller, who);
  return run((ctx, jar) => certificationData(ctx, jar, who.contribuyente));
}
