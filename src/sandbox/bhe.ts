// loa.sii.cl: boletas de honorarios (BHE) as the SII serves them (docs/sii-services.md §5.3): latin1
// pages whose data sits in JavaScript assignments, a clave session, and the two-step e-mail
// resend of an issued slip.
import type { Context } from "hono";
import { formDecodeLatin1, responseText } from "../lib/latin1.ts";
import { escapeXml } from "../lib/xml.ts";
import { claveLoginWall, latin1Html } from "./pages.ts";
import type { BheSlip } from "./records.ts";
import type { SandboxState } from "./state.ts";

export type { BheSlip } from "./records.ts";

/** The slips the sandbox's people have issued (deterministic, so their codes can be documented). */
export const SANDBOX_BHE: readonly BheSlip[] = [
  {
    codigo: "222222220000041F99ED",
    emisor: "22222222-2",
    nro_boleta: 41,
    fecha: "2026-05-03",
    receptor_rut: "76192083-9",
    receptor_nombre: "COMERCIAL SANDBOX SPA",
    receptor_email: "pagos@sandbox.example",
    bruto: 100000,
  },
  {
    codigo: "222222220000042A13C7",
    emisor: "22222222-2",
    nro_boleta: 42,
    fecha: "2026-06-10",
    receptor_rut: "11111111-1",
    receptor_nombre: "JUANA PÉREZ SOTO",
    receptor_email: "",
    bruto: 250000,
  },
  {
    codigo: "111111110000007B2D41",
    emisor: "11111111-1",
    nro_boleta: 7,
    fecha: "2025-11-20",
    receptor_rut: "76192083-9",
    receptor_nombre: "COMERCIAL SANDBOX SPA",
    receptor_email: "pagos@sandbox.example",
    bruto: 80000,
  },
];

const EMAIL = /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/;

function noSuchSlip(): Response {
  return latin1Html("<h3>INFORMACION AL CONTRIBUYENTE</h3><p>No existe la boleta de honorarios solicitada.</p>");
}

function ownSlip(state: SandboxState, rut: string, codigo: string): BheSlip | undefined {
  return state.bhe.find((slip) => slip.codigo === codigo && slip.emisor === rut);
}

/** Step 1: the pre-filled form to send one issued slip by e-mail. */
export function presentaDatosEnvio(c: Context, state: SandboxState, now: number): Response {
  const rut = state.sessionOf(c.req.header("cookie"), now)?.rut;
  if (!rut) return claveLoginWall();
  const slip = ownSlip(state, rut, c.req.query("txt_codigobarras") ?? "");
  if (!slip) return noSuchSlip();
  const js = `<script>xml_values['nro_boleta'] = "${slip.nro_boleta}";\nxml_values['nombre_receptor'] = "${escapeXml(slip.receptor_nombre)}";\nxml_values['email'] = "${escapeXml(slip.receptor_email)}";</script>`;
  return latin1Html(
    `${js}<h3>ENVIO DE BOLETA DE HONORARIOS ELECTRONICA POR CORREO</h3>
<form name="formulario" method="POST" action="/cgi_IMT/TMBCOT_ConsultaBoletaPdf.cgi">
<input type="hidden" name="txt_codigobarras" value="${slip.codigo}">
<input type="hidden" name="veroriginal" value="si">
<input type="hidden" name="origen" value="QUINTO">
<input type="hidden" name="enviar" value="si">
Correo electrónico: <input type="text" name="txt_email" value="">
<input type="button" name="btn_enviar" value="Enviar">
</form>`,
  );
}

/** Step 2: send it. The e-mail arrives percent-encoded as latin1. */
export async function consultaBoletaPdf(c: Context, state: SandboxState, now: number): Promise<Response> {
  const rut = state.sessionOf(c.req.header("cookie"), now)?.rut;
  if (!rut) return claveLoginWall();
  const form = formDecodeLatin1(await responseText(c.req.raw));
  const slip = ownSlip(state, rut, form.get("txt_codigobarras") ?? "");
  if (!slip || form.get("origen") !== "QUINTO") return noSuchSlip();
  const email = form.get("txt_email") ?? "";
  if (!EMAIL.test(email)) return latin1Html("<p>El correo electrónico ingresado no es válido. No se pudo enviar la boleta.</p>");
  state.bheEmails.push({ codigo: slip.codigo, email });
  return latin1Html(
    `<p>La Boleta de Honorarios Electrónica N° ${slip.nro_boleta} ha sido enviada exitosamente al correo ${escapeXml(email)}.</p>`,
  );
}
