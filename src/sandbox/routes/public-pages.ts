// The SII's public pages (www): the yearly indicator tables and the vehicle appraisal workbooks.
import type { Context } from "hono";
import { correccionPage, impuestoSegundaPage, ufYearPage } from "../indicadores.ts";
import type { Env } from "../serve.ts";
import { appraisalFile, DEFAULT_VEHICLE_ROWS, type WorkbookKind } from "../vehiculos.ts";
import type { RouteKit } from "./kit.ts";

export function registerPublicPageRoutes({ app, service, now, options }: RouteKit): void {
  // Public indicator pages (www).
  const www = "/:host{www\\.sii\\.cl}/valores_y_fechas";
  const yearOf = (c: Context<Env>) => Number(/(\d{4})/.exec(c.req.param("page") ?? "")?.[1]);
  app.get(
    `${www}/uf/:page{uf\\d{4}\\.htm}`,
    service("indicadores", (c) => ufYearPage(yearOf(c), new Date(now()))),
  );
  app.get(
    `${www}/correccion_monetaria/:page{correccion\\d{4}\\.htm}`,
    service("indicadores", (c) => correccionPage(yearOf(c), new Date(now()))),
  );
  app.get(
    `${www}/impuesto_2da_categoria/:page{impuesto\\d{4}\\.htm}`,
    service("indicadores", (c) => impuestoSegundaPage(yearOf(c), new Date(now()))),
  );

  // The yearly appraisal workbooks of light and heavy vehicles (www).
  app.get(
    "/:host{www\\.sii\\.cl}/servicios_online/tasacion_fiscal_vehiculos/:file{(?:liv|pes)\\d{4}\\.xlsx}",
    service("vehiculos", (c) => {
      const file = c.req.param("file") ?? "";
      const kind = file.slice(0, 3) as WorkbookKind;
      return appraisalFile(kind, Number(file.slice(3, 7)), options.vehicleRows ?? DEFAULT_VEHICLE_ROWS, new Date(now()));
    }),
  );
}
