// The boleta set from the SII's GWT-RPC application on www4 (certBolElectDteInternet: facade, then
// DownloadFileServlet), as devlas-cl/dte-sii cert/CertRunner.js and cert/BoletaCert.js use it.
import { encodeLatin1 } from "../lib/latin1.ts";
import { rutCheckDigit } from "../lib/rut.ts";
import { authorize, type CgiContext } from "./cvc-cgi.ts";
import { mayActFor } from "./taxpayers.ts";

/** Where the sandbox's attention numbers start (the boleta set's, and the invoice sets' in certificacion.ts). */
export const NUMERO_BASE = 4_900_000;

// devlas-cl/dte-sii cert/CertRunner.js: the application's serialization policy and service.
const GWT_POLICY = "082D0AC4BC4D75A5DF38F116C53877D4";
const GWT_FACADE = "cl.sii.sdi.diii.certBolElectDte.web.client.service.Facade";

const gwtAnswer = (body: string) => new Response(body, { headers: { "content-type": "application/json; charset=utf-8" } });
const gwtException = (message: string) =>
  gwtAnswer(`//EX[2,1,["com.google.gwt.user.client.rpc.IncompatibleRemoteServiceException/3936916533",${JSON.stringify(message)}],0,7]`);

/** A GWT-RPC request read back: its method and parameters (integers as numbers, strings as text). */
function readGwtRequest(body: string): { policy: string; service: string; method: string; params: (number | string)[] } | null {
  const parts = body.split("|").map((p) => p.replaceAll("\\!", "|").replaceAll("\\\\", "\\"));
  if (parts[0] !== "7") return null;
  const count = Number(parts[2]);
  const table = parts.slice(3, 3 + count);
  const payload = parts.slice(3 + count);
  const at = (i: number) => table[Number(payload[i]) - 1] ?? "";
  const paramCount = Number(payload[4]);
  const types = Array.from({ length: paramCount }, (_, i) => at(5 + i));
  const params: (number | string)[] = [];
  let cursor = 5 + paramCount;
  for (const type of types) {
    if (type.startsWith("java.lang.Integer/")) {
      params.push(Number(payload[cursor + 1]));
      cursor += 2;
    } else {
      params.push(at(cursor));
      cursor += 1;
    }
  }
  return { policy: table[1] ?? "", service: table[2] ?? "", method: table[3] ?? "", params };
}

/** Who acts in this request, for `rut`-`dv`; a Response when the session or the company is refused. */
function boletaCaller(ctx: CgiContext, rut: string, dv: string) {
  return authorize(
    ctx,
    new Map([
      ["RUT_EMP", rut],
      ["DV_EMP", dv],
    ]),
  );
}

/**
 * certBolElectDteInternet/facade: recuperarRepresentantesVigentesUsuariosAutorizados answers the
 * company's representative (the session's holder) when the company applied for boletas, an empty
 * list otherwise (devlas-cl/dte-sii cert/CertRunner.js: `//OK[0,[],0,7]`); obtenerPostulacionSeg,
 * which the application calls before a download, answers the empty list of a set not yet passed.
 */
export async function boletaFacade(ctx: CgiContext): Promise<Response> {
  if (!/^text\/x-gwt-rpc/i.test(ctx.c.req.header("content-type") ?? "")) return gwtException("Content-Type was not text/x-gwt-rpc");
  const call = readGwtRequest(await ctx.c.req.text());
  if (!call || call.policy !== GWT_POLICY || call.service !== GWT_FACADE) return gwtException("The response could not be deserialized");
  const [rut, dv] = [String(call.params[0] ?? ""), String(call.params[1] ?? "")];
  const who = boletaCaller(ctx, rut, dv);
  if (who instanceof Response) return who.status === 302 ? who : gwtException("Usuario no autorizado");
  const certification = ctx.state.certifications.get(who.rut);
  const applied = certification?.documentos.includes("ESBOL") ?? false;
  switch (call.method) {
    case "recuperarRepresentantesVigentesUsuariosAutorizados": {
      if (!applied) return gwtAnswer("//OK[0,[],0,7]");
      const [body = "", digit = ""] = who.holder.split("-");
      return gwtAnswer(
        `//OK[4,3,2,1,1,["java.util.ArrayList/4159755760","cl.sii.sdi.diii.certBolElectDte.to.RepreTo/0",${JSON.stringify(digit)},${JSON.stringify(body)}],0,7]`,
      );
    }
    case "obtenerPostulacionSeg":
      if (certification && applied) certification.boletaPostulacionVista = true;
      return gwtAnswer("//OK[0,[],0,7]");
    default:
      return gwtException(`Unknown method ${call.method}`);
  }
}

/** The boleta set's cases (layout of devlas-cl/dte-sii cert/BoletaCert.js parseSetPruebas; items inferred). */
const BOLETA_CASES: [string, string, string][][] = [
  [
    ["Cambio de aceite", "1", "19900"],
    ["Alineacion y balanceo", "1", "9900"],
  ],
  [["Papel de regalo", "17", "120"]],
  [
    ["item afecto 1", "8", "1590"],
    ["item exento 2", "2", "1000"],
  ],
];

/**
 * certBolElectDteInternet/DownloadFileServlet: the boleta set as text, for a company that applied
 * for boletas, with its representative (rutRepre/dvRepre) and after obtenerPostulacionSeg.
 */
export function boletaDownload(ctx: CgiContext): Response {
  const query = (name: string) => ctx.c.req.query(name) ?? "";
  const who = boletaCaller(ctx, query("rutEmpresa"), query("dvEmpresa"));
  if (who instanceof Response) return who;
  const certification = ctx.state.certifications.get(who.rut);
  const plain = (text: string) => new Response(encodeLatin1(text), { headers: { "content-type": "text/plain; charset=ISO-8859-1" } });
  // Inferred refusals: the servlet's own messages are not public.
  if (!certification?.documentos.includes("ESBOL"))
    return plain("Debe estar habilitado en el ambiente de certificacion para bajar el set.");
  const representative = `${query("rutRepre")}-${query("dvRepre").toUpperCase()}`;
  if (representative !== who.holder && !mayActFor(representative, who.rut)) return plain("Representante no vigente para la empresa.");
  if (rutCheckDigit(query("rutRepre")) !== query("dvRepre").toUpperCase()) return plain("Representante no vigente para la empresa.");
  if (!certification.boletaPostulacionVista) return plain("Postulacion no encontrada.");
  const numero = String(NUMERO_BASE + 5000 + ctx.state.certifications.size);
  certification.boletas = {
    nombre: "SET DE BOLETA ELECTRONICA",
    numero,
    casos: BOLETA_CASES.map((_, i) => String(i + 1)),
    estado: "POR REALIZAR",
  };
  const text = [
    "SET DE PRUEBAS BOLETA ELECTRONICA",
    "",
    ...BOLETA_CASES.flatMap((items, i) => [
      `CASO-${i + 1}`,
      "==========",
      `${"Item".padEnd(40)}${"Cantidad".padEnd(16)}Precio Unitario`,
      ...items.map(([item = "", qty = "", price = ""]) => `${item.padEnd(40)}${qty.padEnd(16)}${price}`),
      "",
    ]),
  ].join("\r\n");
  return new Response(encodeLatin1(text), {
    headers: { "content-type": "text/plain; charset=ISO-8859-1", "content-disposition": 'attachment; filename="SetPruebasBoleta.txt"' },
  });
}
