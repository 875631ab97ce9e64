// Folio stamping and annulment (palena/maullin's cvc_cgi) and the certification process (maullin's
// CGIs, the boleta certification application on www4).
import type { Context } from "hono";
import { CERTIFICATION_ROUTES } from "../certificacion.ts";
import type { CgiContext } from "../cvc-cgi.ts";
import {
  anular,
  anular1,
  anular2,
  anular3,
  confirmaFolio,
  generaArchivo,
  generaFolio,
  solicitaFolios,
  solicitaFoliosDcto,
} from "../folios.ts";
import type { Env } from "../serve.ts";
import { ambienteOf, type RouteKit, soapHosts } from "./kit.ts";

export function registerFoliosRoutes({ app, service, state, now }: RouteKit): void {
  // Folio stamping and annulment (palena / maullin).
  const folios = (handler: (ctx: CgiContext) => Response | Promise<Response>) => (c: Context<Env>) =>
    handler({ c, state, now: now(), ambiente: ambienteOf(c) });
  const cgi = `/:host${soapHosts}/cvc_cgi/dte`;
  app.get(`${cgi}/of_solicita_folios`, service("caf_request", folios(solicitaFolios)));
  app.post(`${cgi}/of_solicita_folios_dcto`, service("caf_request", folios(solicitaFoliosDcto)));
  app.post(`${cgi}/of_confirma_folio`, service("caf_request", folios(confirmaFolio)));
  app.post(`${cgi}/of_genera_folio`, service("caf_generate", folios(generaFolio)));
  app.post(`${cgi}/of_genera_archivo`, service("caf_download", folios(generaArchivo)));
  app.get(`${cgi}/af_anular1`, service("caf_annul", folios(anular1)));
  app.post(`${cgi}/af_anular2`, service("caf_annul", folios(anular2)));
  app.post(`${cgi}/af_anular3`, service("caf_annul", folios(anular3)));
  app.post(`${cgi}/af_anular`, service("caf_annul_confirm", folios(anular)));

  // The certification process (maullin's CGIs) and the boleta certification application (www4).
  for (const route of CERTIFICATION_ROUTES) app[route.method](route.path, service(route.service, folios(route.handler)));
}
