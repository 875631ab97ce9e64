// The DTE web services: the SOAP seed, token and statuses and the upload (palena/maullin), the
// boleta REST service (api/apicert, rahue/pangal), and acceptances and claims (ws1/ws2).
import type { Context } from "hono";
import { responseText } from "../../lib/latin1.ts";
import { dteUpload, queryEstDteAv, queryEstUp } from "../envios.ts";
import { boletaEnvio, boletaEstado, boletaSeed, boletaToken } from "../envios-boleta.ts";
import { registroReclamo } from "../intercambios.ts";
import type { Env } from "../serve.ts";
import { issueSeed, issueToken, soapFault, soapOperation } from "../soap.ts";
import { ambienteOf, type RouteKit, soapHosts } from "./kit.ts";

export function registerDteWsRoutes({ app, service, state, now, options }: RouteKit): void {
  app.post(
    `/:host${soapHosts}/DTEWS/CrSeed.jws`,
    service("seed", async (c) => {
      const operation = soapOperation(await responseText(c.req.raw));
      if (operation !== "getSeed") return soapFault(`No such operation '${operation ?? ""}'`);
      return issueSeed(state, ambienteOf(c), now());
    }),
  );
  // What clients fetch to see the service is there (the proxy test does).
  app.get(
    `/:host${soapHosts}/DTEWS/CrSeed.jws`,
    service(
      "seed_wsdl",
      () =>
        new Response(
          '<?xml version="1.0" encoding="UTF-8"?><wsdl:definitions targetNamespace="http://DefaultNamespace" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/"><wsdl:service name="CrSeedService"/></wsdl:definitions>',
          { headers: { "content-type": "text/xml; charset=utf-8" } },
        ),
    ),
  );
  app.post(
    `/:host${soapHosts}/DTEWS/GetTokenFromSeed.jws`,
    service("token", async (c) => {
      const xml = await responseText(c.req.raw);
      if (soapOperation(xml) !== "getToken") return soapFault(`No such operation '${soapOperation(xml) ?? ""}'`);
      return issueToken(state, ambienteOf(c), xml, now(), options.checkCertificate);
    }),
  );

  app.post(
    `/:host${soapHosts}/DTEWS/QueryEstUp.jws`,
    service("envio_status", async (c) => {
      const xml = await responseText(c.req.raw);
      if (soapOperation(xml) !== "getEstUp") return soapFault(`No such operation '${soapOperation(xml) ?? ""}'`);
      return queryEstUp(state, xml, ambienteOf(c), now());
    }),
  );

  app.post(
    `/:host${soapHosts}/DTEWS/services/QueryEstDteAv`,
    service("document_status", async (c) => {
      const xml = await responseText(c.req.raw);
      if (soapOperation(xml) !== "getEstDteAv") return soapFault(`No such operation '${soapOperation(xml) ?? ""}'`);
      return queryEstDteAv(state, xml, ambienteOf(c), now());
    }),
  );
  app.post(
    `/:host${soapHosts}/cgi_dte/UPL/DTEUpload`,
    service("dte_upload", (c) => dteUpload(c, state, ambienteOf(c), now())),
  );

  // The boleta REST service: seed, token and status on api/apicert, the upload on rahue/pangal.
  const boletaApi = "/:host{api\\.sii\\.cl|apicert\\.sii\\.cl}/recursos/v1";
  const boletaAmbiente = (c: Context<Env>) => (["apicert.sii.cl", "pangal.sii.cl"].includes(c.req.param("host") ?? "") ? "1" : "0");
  app.get(
    `${boletaApi}/boleta.electronica.semilla`,
    service("boleta_seed", (c) => boletaSeed(state, boletaAmbiente(c), now())),
  );
  app.post(
    `${boletaApi}/boleta.electronica.token`,
    service("boleta_token", (c) => boletaToken(c, state, boletaAmbiente(c), now(), options.checkCertificate)),
  );
  app.get(
    `${boletaApi}/boleta.electronica.envio/:ref`,
    service("boleta_status", (c) => boletaEstado(c, state, boletaAmbiente(c), now())),
  );
  app.post(
    "/:host{rahue\\.sii\\.cl|pangal\\.sii\\.cl}/recursos/v1/boleta.electronica.envio",
    service("boleta_upload", (c) => boletaEnvio(c, state, boletaAmbiente(c), now())),
  );

  // Acceptance and claims of received documents (ws1 production, ws2 certification).
  app.post(
    "/:host{ws1\\.sii\\.cl}/WSREGISTRORECLAMODTE/registroreclamodteservice",
    service("reclamos", (c) => registroReclamo(c, state, now(), "0")),
  );
  app.post(
    "/:host{ws2\\.sii\\.cl}/WSREGISTRORECLAMODTECERT/registroreclamodteservice",
    service("reclamos", (c) => registroReclamo(c, state, now(), "1")),
  );
}
