// The processing status of an uploaded envelope (QueryEstUp, sii-upstream §8.2). The SII's state
// codes are kept; `resultado` says plainly what they mean, because EPR alone ("processed") does
// not mean accepted: the per-type counts do.
import { elementInner, elementsInner, elementText } from "../lib/xml.ts";
import { ApiError } from "../platform/errors.ts";
import { type Ambiente, siiHosts } from "./hosts.ts";
import type { SiiContext } from "./http.ts";
import { soapCall } from "./soap.ts";
import { TokenRejected } from "./token.ts";

export type Resultado = "procesando" | "aceptado" | "aceptado_con_reparos" | "rechazado";

export interface TypeCounts {
  tipo: number;
  informados: number;
  aceptados: number;
  rechazados: number;
  reparos: number;
}

export interface UploadStatus {
  track_id: string;
  estado: string;
  glosa: string | null;
  resultado: Resultado;
  documentos: TypeCounts[];
  num_atencion: string | null;
}

/** Envelope states that end processing with a refusal of the whole envelope or its documents. */
const REJECTED = new Set(["RSC", "RFR", "RCT", "RCH", "RPT", "VOF", "SRH", "RCO"]);
const WITH_OBJECTIONS = new Set(["RPR", "RLV"]);
const PROCESSED = new Set(["EPR", "LOK"]);
const TOKEN_ESTADOS = new Set(["001", "002", "003"]);

/** What a final state and its counts mean for the client. */
export function resultadoOf(estado: string, counts: TypeCounts[]): Resultado {
  if (REJECTED.has(estado)) return "rechazado";
  if (WITH_OBJECTIONS.has(estado)) return "aceptado_con_reparos";
  if (!PROCESSED.has(estado)) return "procesando";
  const total = (key: keyof TypeCounts) => counts.reduce((sum, c) => sum + c[key], 0);
  if (total("informados") > 0 && total("rechazados") === total("informados")) return "rechazado";
  return total("rechazados") > 0 || total("reparos") > 0 ? "aceptado_con_reparos" : "aceptado";
}

/** The body's repeated TIPO_DOCTO … REPAROS groups, in order. */
function parseCounts(body: string): TypeCounts[] {
  const field = (name: string) => elementsInner(body, name).map((v) => Number(v.trim()));
  const tipos = field("TIPO_DOCTO");
  const [informados, aceptados, rechazados, reparos] = ["INFORMADOS", "ACEPTADOS", "RECHAZADOS", "REPAROS"].map(field);
  return tipos.map((tipo, i) => ({
    tipo,
    informados: informados?.[i] ?? 0,
    aceptados: aceptados?.[i] ?? 0,
    rechazados: rechazados?.[i] ?? 0,
    reparos: reparos?.[i] ?? 0,
  }));
}

export async function queryUploadStatus(
  ctx: SiiContext,
  ambiente: Ambiente,
  token: string,
  emisor: string,
  trackId: string,
): Promise<UploadStatus> {
  const [rut = "", dv = ""] = emisor.split("-");
  const answer = await soapCall(ctx, {
    url: `https://${siiHosts(ambiente).dte}/DTEWS/QueryEstUp.jws`,
    operation: "getEstUp",
    params: [
      ["RutCompania", rut],
      ["DvCompania", dv],
      ["TrackId", trackId],
      ["Token", token],
    ],
    service: "envio_status",
    read: true,
  });
  const { estado, glosa } = answer;
  if (TOKEN_ESTADOS.has(estado)) throw new TokenRejected(glosa ?? estado);
  const details = { service: "envio_status", sii_estado: estado, sii_message: glosa };
  if (estado === "-11") throw new ApiError(404, "HTTP_404", `The SII has no envelope ${trackId} of ${emisor}`, { details });
  if (estado === "-3" || estado === "-6")
    throw new ApiError(403, "AUTH_ERROR", `The certificate's holder may not query envelopes of ${emisor}`, { details });
  if (estado.startsWith("-") || !estado)
    throw new ApiError(502, "SII_GATEWAY_ERROR", `The SII refused the status query: ${glosa ?? estado}`, { details });
  const counts = parseCounts(elementInner(answer.xml, "RESP_BODY") ?? "");
  return {
    track_id: elementText(answer.xml, "TRACKID")?.trim() ?? trackId,
    estado,
    glosa,
    resultado: resultadoOf(estado, counts),
    documentos: counts,
    num_atencion: elementText(answer.xml, "NUM_ATENCION"),
  };
}

export interface DocumentAtSii {
  emisor: string;
  receptor: string;
  tipo: number;
  folio: number;
  /** YYYY-MM-DD */
  fecha: string;
  monto: number;
  /** The document's SignatureValue, base64. */
  firma: string;
}

export interface SiiDocumentStatus {
  recibido: boolean;
  /** `DOK` received and matching; `DNK` received, data differ; `FAU` not received; `FAN` annulled; … */
  estado: string;
  glosa: string | null;
  track_id: string | null;
}

/** QueryEstDteAv (sii-upstream §8.4): the SII's own check of a document, its signature included. */
export async function advancedDocumentStatus(
  ctx: SiiContext,
  ambiente: Ambiente,
  token: string,
  doc: DocumentAtSii,
): Promise<SiiDocumentStatus> {
  const [rutEmisor = "", dvEmisor = ""] = doc.emisor.split("-");
  const [rutReceptor = "", dvReceptor = ""] = doc.receptor.split("-");
  const [y = "", m = "", d = ""] = doc.fecha.split("-");
  const answer = await soapCall(ctx, {
    url: `https://${siiHosts(ambiente).dte}/DTEWS/services/QueryEstDteAv`,
    operation: "getEstDteAv",
    params: [
      ["RutEmpresa", rutEmisor],
      ["DvEmpresa", dvEmisor],
      ["RutReceptor", rutReceptor],
      ["DvReceptor", dvReceptor],
      ["TipoDte", String(doc.tipo)],
      ["FolioDte", String(doc.folio)],
      ["FechaEmisionDte", `${d}${m}${y}`],
      ["MontoDte", String(doc.monto)],
      ["FirmaDte", doc.firma],
      ["Token", token],
    ],
    service: "document_status",
    read: true,
  });
  const header = elementInner(answer.xml, "RESP_HDR") ?? "";
  const body = elementInner(answer.xml, "RESP_BODY") ?? "";
  const estado = elementText(header, "ESTADO")?.trim() ?? "";
  const glosa = elementText(header, "GLOSA");
  if (["1", "2", "001", "002", "003"].includes(estado)) throw new TokenRejected(glosa ?? estado);
  const details = { service: "document_status", sii_estado: estado, sii_message: glosa };
  if (estado === "9")
    throw new ApiError(403, "AUTH_ERROR", `The certificate's holder may not query documents of ${doc.emisor}`, { details });
  if (estado !== "0" && estado !== "00")
    throw new ApiError(502, "SII_GATEWAY_ERROR", `The SII refused the document query: ${glosa ?? estado}`, { details });
  return {
    recibido: elementText(body, "RECIBIDO")?.trim().toUpperCase() === "SI",
    estado: elementText(body, "ESTADO")?.trim() ?? "",
    glosa: elementText(body, "GLOSA"),
    track_id: elementText(body, "TRACKID")?.trim() || null,
  };
}
