// createApp(deps): the one Hono app every runtime serves. Middleware order follows the request
// lifecycle of the design: timing, request id, body limit, auth, scope, validation, idempotency, quota.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "./platform/context.ts";
import { cors } from "./platform/cors.ts";
import { ApiError, errorResponse } from "./platform/errors.ts";
import { failureResponse } from "./platform/failure.ts";
import { rateHeaders } from "./platform/rate-headers.ts";
import { requestContext, requestIdFor, serverTiming } from "./platform/request.ts";
import { securityHeaders } from "./platform/security-headers.ts";
import { authenticateKnownRoute, unknownRoute } from "./platform/unknown-routes.ts";
import { validationHook } from "./platform/validation.ts";
import type { Deps } from "./ports/deps.ts";
import { registerAdminGuard } from "./routes/admin/guard.ts";
import { registerAdminTokensBlock } from "./routes/admin/tokens-block.ts";
import { registerAdminTokensCreate } from "./routes/admin/tokens-create.ts";
import { registerAdminTokensGet } from "./routes/admin/tokens-get.ts";
import { registerAdminTokensList } from "./routes/admin/tokens-list.ts";
import { registerAdminTokensRevoke } from "./routes/admin/tokens-revoke.ts";
import { registerAdminTokensUnblock } from "./routes/admin/tokens-unblock.ts";
import { registerBheEmitidasEmail } from "./routes/bhe/emitidas-email.ts";
import { registerBteEmitidasResumen } from "./routes/bte/emitidas-resumen.ts";
import { registerCafAnular } from "./routes/caf/anular.ts";
import { registerCafSolicitar } from "./routes/caf/solicitar.ts";
import { registerCertificacionBoletasSolicitarSet } from "./routes/certificacion/boletas-solicitar-set.ts";
import { registerCertificacionContribuyentesDatos } from "./routes/certificacion/contribuyentes-datos.ts";
import { registerCertificacionFacturasPostular } from "./routes/certificacion/facturas-postular.ts";
import { registerCertificacionFacturasSolicitarSet } from "./routes/certificacion/facturas-solicitar-set.ts";
import { registerCertificacionPostulacionAvance } from "./routes/certificacion/postulacion-avance.ts";
import { registerContribuyentesDatos } from "./routes/contribuyentes/datos.ts";
import { registerDocumentosEscpos } from "./routes/documentos/escpos.ts";
import { registerDocumentosFormatosJson } from "./routes/documentos/formatos-json.ts";
import { registerDocumentosGenerar } from "./routes/documentos/generar.ts";
import { registerDocumentosPdf } from "./routes/documentos/pdf.ts";
import { registerEnviosEnviar } from "./routes/envios/enviar.ts";
import { registerEnviosEstado } from "./routes/envios/estado.ts";
import { registerEnviosVerificar } from "./routes/envios/verificar.ts";
import { registerFolioLedgerGet } from "./routes/folio-ledger/get-folios.ts";
import { registerFolioLedgerPost } from "./routes/folio-ledger/post-folios.ts";
import { registerFolioLedgerThreshold } from "./routes/folio-ledger/put-umbral.ts";
import { registerHealthz } from "./routes/health/healthz.ts";
import { registerIndicadoresCorreccionMonetaria } from "./routes/indicadores/correccion-monetaria.ts";
import { registerIndicadoresImpuestoSegundaCategoria } from "./routes/indicadores/impuesto-segunda-categoria.ts";
import { registerIndicadoresUf } from "./routes/indicadores/uf.ts";
import { registerIntercambiosCesion } from "./routes/intercambios/cesion.ts";
import { registerIntercambiosEventos } from "./routes/intercambios/eventos.ts";
import { registerIntercambiosRecepcionSii } from "./routes/intercambios/recepcion-sii.ts";
import { registerIntercambiosRespuestaSii } from "./routes/intercambios/respuesta-sii.ts";
import { registerJobsCancel } from "./routes/jobs/cancel.ts";
import { registerJobsCreate } from "./routes/jobs/create.ts";
import { registerEventsList } from "./routes/jobs/events.ts";
import { registerJobsGet } from "./routes/jobs/get.ts";
import { registerJobsList } from "./routes/jobs/list.ts";
import { registerJobsResume } from "./routes/jobs/resume.ts";
import { registerOpenApi } from "./routes/openapi.ts";
import { registerRcvComprasAsyncDetalle } from "./routes/rcv/compras-async-detalle.ts";
import { registerRcvComprasAsyncEstado } from "./routes/rcv/compras-async-estado.ts";
import { registerRcvComprasAsyncSolicitar } from "./routes/rcv/compras-async-solicitar.ts";
import { registerRcvComprasDetalle } from "./routes/rcv/compras-detalle.ts";
import { registerRcvComprasDetalleDocumento } from "./routes/rcv/compras-detalle-documento.ts";
import { registerRcvComprasResumen } from "./routes/rcv/compras-resumen.ts";
import { registerRcvComprasSetTipoTransaccion } from "./routes/rcv/compras-set-tipo-transaccion.ts";
import { registerRcvVentasAsyncDetalle } from "./routes/rcv/ventas-async-detalle.ts";
import { registerRcvVentasAsyncEstado } from "./routes/rcv/ventas-async-estado.ts";
import { registerRcvVentasAsyncSolicitar } from "./routes/rcv/ventas-async-solicitar.ts";
import { registerRcvVentasDeleteResumen } from "./routes/rcv/ventas-delete-resumen.ts";
import { registerRcvVentasDetalle } from "./routes/rcv/ventas-detalle.ts";
import { registerRcvVentasGetDetalleResumen } from "./routes/rcv/ventas-get-detalle-resumen.ts";
import { registerRcvVentasResumen } from "./routes/rcv/ventas-resumen.ts";
import { registerRcvVentasSetBoletasDiarias } from "./routes/rcv/ventas-set-boletas-diarias.ts";
import { registerRcvVentasSetResumen } from "./routes/rcv/ventas-set-resumen.ts";
import { registerSandboxClock } from "./routes/sandbox/clock.ts";
import { registerSandboxControls } from "./routes/sandbox/controls.ts";
import { registerSandboxCredentials } from "./routes/sandbox/credentials.ts";
import { registerSandboxReplays } from "./routes/sandbox/replays.ts";
import { registerSettingsGetProxy } from "./routes/settings/get-proxy.ts";
import { registerSettingsPutProxy } from "./routes/settings/put-proxy.ts";
import { registerSettingsTestProxy } from "./routes/settings/test-proxy.ts";
import { registerUsageGet } from "./routes/usage/get.ts";
import { registerVehiculosCategoriasCaracteristicas } from "./routes/vehiculos/categorias-caracteristicas.ts";
import { registerVehiculosCategoriasMarcas } from "./routes/vehiculos/categorias-marcas.ts";
import { registerVehiculosCategoriasTipos } from "./routes/vehiculos/categorias-tipos.ts";
import { registerVehiculosTasacionBuscar } from "./routes/vehiculos/tasacion-buscar.ts";

export type DepsResolver = (c: Context) => Deps | Promise<Deps>;

export function createApp(resolveDeps: DepsResolver): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.use(serverTiming);
  app.use(securityHeaders);
  app.use(async (c, next) => {
    c.set("deps", await resolveDeps(c));
    await next();
  });
  app.use(requestContext);
  app.use(cors);
  app.use(async (c, next) => {
    const maxSize = c.get("deps").config.maxBodyBytes;
    // A declared length within the limit is let through as bodyLimit would, without touching
    // `body`: on Node that alone builds a full Request with a body stream for every call.
    const headers = c.req.raw.headers;
    if (!headers.has("transfer-encoding") && Number.parseInt(headers.get("content-length") ?? "", 10) <= maxSize) return next();
    return bodyLimit({
      maxSize,
      onError: (c) => errorResponse(c, new ApiError(413, "PAYLOAD_TOO_LARGE", `The request body is larger than ${maxSize} bytes`)),
    })(c, next);
  });
  app.use("/api/*", rateHeaders, authenticateKnownRoute(app));

  registerHealthz(app);
  registerUsageGet(app);
  registerCafSolicitar(app);
  registerCafAnular(app);
  registerFolioLedgerPost(app);
  registerFolioLedgerGet(app);
  registerFolioLedgerThreshold(app);
  registerContribuyentesDatos(app);
  registerBheEmitidasEmail(app);
  registerBteEmitidasResumen(app);
  registerIndicadoresUf(app);
  registerVehiculosCategoriasTipos(app);
  registerVehiculosCategoriasMarcas(app);
  registerVehiculosCategoriasCaracteristicas(app);
  registerVehiculosTasacionBuscar(app);
  registerDocumentosFormatosJson(app);
  registerDocumentosGenerar(app);
  registerDocumentosEscpos(app);
  registerDocumentosPdf(app);
  registerRcvComprasResumen(app);
  registerRcvVentasResumen(app);
  registerRcvComprasDetalle(app);
  registerRcvVentasDetalle(app);
  registerRcvComprasDetalleDocumento(app);
  registerRcvComprasAsyncSolicitar(app);
  registerRcvComprasAsyncEstado(app);
  registerRcvComprasAsyncDetalle(app);
  registerRcvVentasAsyncSolicitar(app);
  registerRcvVentasAsyncEstado(app);
  registerRcvVentasAsyncDetalle(app);
  registerRcvComprasSetTipoTransaccion(app);
  registerRcvVentasSetResumen(app);
  registerRcvVentasDeleteResumen(app);
  registerRcvVentasSetBoletasDiarias(app);
  registerRcvVentasGetDetalleResumen(app);
  registerIndicadoresCorreccionMonetaria(app);
  registerIndicadoresImpuestoSegundaCategoria(app);
  registerCertificacionFacturasPostular(app);
  registerCertificacionFacturasSolicitarSet(app);
  registerCertificacionBoletasSolicitarSet(app);
  registerCertificacionPostulacionAvance(app);
  registerCertificacionContribuyentesDatos(app);
  registerEnviosEnviar(app);
  registerEnviosEstado(app);
  registerEnviosVerificar(app);
  registerIntercambiosCesion(app);
  registerIntercambiosEventos(app);
  registerIntercambiosRecepcionSii(app);
  registerIntercambiosRespuestaSii(app);
  registerSettingsGetProxy(app);
  registerSettingsPutProxy(app);
  registerSettingsTestProxy(app);
  registerJobsCreate(app);
  registerJobsList(app);
  registerJobsGet(app);
  registerJobsCancel(app);
  registerJobsResume(app);
  registerEventsList(app);
  registerSandboxControls(app);
  registerSandboxReplays(app);
  registerSandboxCredentials(app);
  registerSandboxClock(app);
  registerAdminGuard(app);
  registerAdminTokensCreate(app);
  registerAdminTokensList(app);
  registerAdminTokensGet(app);
  registerAdminTokensBlock(app);
  registerAdminTokensUnblock(app);
  registerAdminTokensRevoke(app);
  registerOpenApi(app);

  app.notFound(unknownRoute(app));
  app.onError((err, c) => {
    // A failure before the request context ran (the deps refused their configuration, say) still
    // answers with a request id, in the body and the header.
    if (!c.get("requestId")) c.set("requestId", requestIdFor(c.req.header("x-request-id")));
    const res = failureResponse(c, err);
    if (!res.headers.has("X-Request-Id")) res.headers.set("X-Request-Id", c.get("requestId"));
    return res;
  });
  return app;
}
