// The SII's boleta REST service (docs/sii-services.md §2.2, §11.2): its own seed and token (the DTE token is
// not accepted, nor this one by DTEUpload), the envelope upload on rahue/pangal answering JSON,
// and the envelope status as JSON with per-document rejection detail.
import type { Context } from "hono";
import { EnvelopeUnreadable, inspectEnvelope } from "../dte/verify/envelope.ts";
import { santiagoDateTime } from "../lib/dates.ts";
import { responseText } from "../lib/latin1.ts";
import { type Envio, envioEstado, receiveEnvelope } from "./envios.ts";
import { type CertificateCheck, seedRespuesta, tokenRespuesta } from "./soap.ts";
import type { SandboxState } from "./state.ts";
import { mayActFor, sandboxTaxpayer } from "./taxpayers.ts";

const xml = (body: string) => new Response(body, { headers: { "content-type": "application/xml; charset=utf-8" } });

export function boletaSeed(state: SandboxState, ambiente: "0" | "1", now: number): Response {
  return xml(seedRespuesta(state, ambiente, now));
}

export async function boletaToken(
  c: Context,
  state: SandboxState,
  ambiente: "0" | "1",
  now: number,
  checkCertificate: (certificateBase64: string) => Promise<CertificateCheck>,
): Promise<Response> {
  return xml(await tokenRespuesta(state, state.boletaTokens, ambiente, await responseText(c.req.raw), now, checkCertificate));
}

/** The caller's boleta token, or the answer the service gives without one. */
function authenticated(c: Context, state: SandboxState, ambiente: "0" | "1", now: number): { rut: string } | Response {
  if (!/PROG 1\.0/.test(c.req.header("user-agent") ?? "")) return c.text("NO ESTA AUTENTICADO", 401);
  const token = /(?:^|;\s*)TOKEN=([^;]+)/.exec(c.req.header("cookie") ?? "")?.[1];
  if (!token) return c.text("No trae TOKEN", 400);
  const issued = state.boletaTokens.get(token);
  if (!issued || issued.expiresAt < now || issued.ambiente !== ambiente) return c.text("NO ESTA AUTENTICADO", 401);
  return { rut: issued.rut };
}

/** POST boleta.electronica.envio: multipart rutSender, dvSender, rutCompany, dvCompany, archivo. */
export async function boletaEnvio(c: Context, state: SandboxState, ambiente: "0" | "1", now: number): Promise<Response> {
  const caller = authenticated(c, state, ambiente, now);
  if (caller instanceof Response) return caller;
  const form = await c.req.parseBody();
  const sender = `${form.rutSender ?? ""}-${String(form.dvSender ?? "").toUpperCase()}`;
  const company = `${form.rutCompany ?? ""}-${String(form.dvCompany ?? "").toUpperCase()}`;
  const archivo = form.archivo;
  if (!(archivo instanceof File)) return c.text("No trae archivo", 400);
  if (caller.rut !== sender || !mayActFor(sender, company))
    return c.text(`El usuario ${sender} no esta autorizado para enviar por ${company}`, 400);
  if (!sandboxTaxpayer(company)?.dte_issuer) return c.text(`La empresa ${company} no esta autorizada a emitir boletas electronicas`, 400);
  const bytes = new Uint8Array(await archivo.arrayBuffer());
  let report: Awaited<ReturnType<typeof inspectEnvelope>>;
  try {
    report = await inspectEnvelope(bytes);
  } catch (err) {
    if (!(err instanceof EnvelopeUnreadable)) throw err;
    return c.text(`Error en el archivo: ${err.message}`, 400);
  }
  if (report.kind !== "EnvioBOLETA") return c.text("El archivo no es un EnvioBOLETA", 400);
  const received = await receiveEnvelope(state, { ambiente, report, bytes, sender, company, file: archivo.name, now, boleta: true });
  if ("duplicateOf" in received) return c.text(`Archivo ya fue enviado con trackid ${Number(received.duplicateOf)}`, 400);
  return c.json({
    rut_emisor: company,
    rut_envia: sender,
    trackid: Number(received.trackId),
    fecha_recepcion: santiagoDateTime(new Date(now)),
    estado: "REC",
    file: archivo.name,
  });
}

/** GET boleta.electronica.envio/{rut}-{dv}-{trackid}. */
export function boletaEstado(c: Context, state: SandboxState, ambiente: "0" | "1", now: number): Response {
  const caller = authenticated(c, state, ambiente, now);
  if (caller instanceof Response) return caller;
  const m = /^(\d{1,8})-([\dkK])-(\d{1,15})$/.exec(c.req.param("ref") ?? "");
  if (!m) return c.text("Parametros invalidos", 400);
  const company = `${m[1]}-${m[2]?.toUpperCase()}`;
  if (!mayActFor(caller.rut, company)) return c.text(`El usuario no esta autorizado para consultar por ${company}`, 400);
  const envio = [...state.envios.values()].find(
    (e) => e.boleta && e.ambiente === ambiente && e.emisor === company && Number(e.trackId) === Number(m[3]),
  );
  if (!envio) return c.text("No existe el envio", 404);
  const estado = envioEstado(envio, now);
  const processed = estado === "EPR";
  const [date = "", time = ""] = santiagoDateTime(new Date(envio.received)).split(" ");
  return c.json({
    rut_emisor: envio.emisor,
    rut_envia: envio.sender,
    trackid: Number(envio.trackId),
    fecha_recepcion: `${date.split("-").reverse().join("/")} ${time}`,
    estado,
    estadistica: processed ? statistics(envio) : [],
    detalle_rep_rech: processed ? rejectionDetail(envio) : null,
  });
}

function statistics(envio: Envio) {
  return [...new Set(envio.documents.map((d) => d.tipo))].map((tipo) => {
    const docs = envio.documents.filter((d) => d.tipo === tipo);
    const count = (estado: string) => docs.filter((d) => d.estado === estado).length;
    return { tipo, informados: docs.length, aceptados: count("DOK"), rechazados: count("RCH"), reparos: count("RPR") };
  });
}

function rejectionDetail(envio: Envio) {
  return envio.documents
    .filter((d) => d.estado !== "DOK")
    .map((d) => {
      const [codigo = "", ...text] = (d.motivo ?? "").split(" ");
      const [seccion = "DTE", , numero = "0"] = codigo.split("-");
      return {
        tipo: d.tipo,
        folio: d.folio,
        estado: d.estado,
        descripcion: d.estado === "RCH" ? "Dte Rechazado" : "Dte Aceptado con Reparos",
        error: d.motivo ? [{ seccion, codigo: Number(numero), descripcion: text.join(" "), detalle: null }] : [],
      };
    });
}
