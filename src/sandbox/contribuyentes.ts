// The contribuyentes operations' SII side, misiir.sii.cl, Mi SII (docs/sii-services.md §4.1): the home page with its data in JavaScript, and
// CViewCarta.cgi answering JSON (opc=112: the taxpayer's file). Both show the session's taxpayer.
import type { Context } from "hono";
import { formDecodeLatin1, responseText } from "../lib/latin1.ts";
import { latin1Html } from "./pages.ts";
import type { SandboxState } from "./state.ts";
import { SANDBOX_TAXPAYERS, sandboxTaxpayer } from "./taxpayers.ts";

const loginWall = () =>
  new Response(null, {
    status: 302,
    headers: {
      Location: "https://zeusr.sii.cl/AUT2000/InicioAutenticacion/IngresoRutClave.html?https://misiir.sii.cl/cgi_misii/siihome.cgi",
    },
  });

function carta(rut: string) {
  const taxpayer = sandboxTaxpayer(rut);
  if (!taxpayer) return { codigoError: 1, descripcionError: "CONTRIBUYENTE NO EXISTE" };
  const [body, dv] = rut.split("-");
  const { ficha } = taxpayer;
  const representantes = SANDBOX_TAXPAYERS.filter((t) => t.rut === taxpayer.certificate_of && t.rut !== rut).map((t) => {
    const [r, d] = t.rut.split("-");
    return { rut: r, dv: d, nombres: t.razon_social, vigente: "S" };
  });
  return {
    codigoError: 0,
    descripcionError: "",
    contribuyente: {
      codigoError: 0,
      rut: body,
      dv,
      razonSocial: taxpayer.razon_social.toUpperCase(),
      eMail: ficha.email,
      telefonoMovil: ficha.telefono,
      personaEmpresa: taxpayer.kind === "company" ? "EMPRESA" : "PERSONA",
    },
    actEcos: ficha.giros.map((g) => ({
      codigo: g.codigo,
      descripcion: g.descripcion,
      categoriaTributaria: "1",
      afectoIva: "S",
      fechaInicio: "04-06-2015",
    })),
    direcciones: [
      {
        tipoDomicilioDescripcion: "CASA MATRIZ",
        calle: ficha.calle,
        numero: ficha.numero,
        comunaDescripcion: ficha.comuna,
        regionDescripcion: ficha.region,
        telefono: ficha.telefono,
        mail: ficha.email,
      },
    ],
    representantes,
    socios: [],
    timbrajes: [],
  };
}

export function siiHome(c: Context, state: SandboxState, now: number): Response {
  const rut = state.sessionOf(c.req.header("cookie"), now)?.rut;
  if (!rut) return loginWall();
  const data = carta(rut);
  return latin1Html(`<h1>Mi SII</h1><script>var DatosCntrNow = ${JSON.stringify(data)};</script><div id="datos"></div>`);
}

export async function cViewCarta(c: Context, state: SandboxState, now: number): Promise<Response> {
  const rut = state.sessionOf(c.req.header("cookie"), now)?.rut;
  if (!rut) return loginWall();
  const form = formDecodeLatin1(await responseText(c.req.raw));
  if (form.get("opc") !== "112") return Response.json({ codigoError: 99, descripcionError: "OPCION NO DISPONIBLE" });
  return Response.json(carta(rut));
}
