// The processing status of an uploaded envelope (QueryEstUp, docs/sii-services.md §8.2). The SII's state
// codes are kept; `resultado` says plainly what they mean, because EPR alone ("processed") does
// not mean accepted: the per-type counts do.

import { ApiError } from "../lib/api-error.ts";
import { elementInner, elementsInner, elementText } from "../lib/xml.ts";
import { formatChanged } from "./format-changed.ts";
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

/**
 * What a final state and its counts mean for the client. An `EPR` envelope with any document
 * rejected is `rechazado`, with repairs only `aceptado_con_reparos`: LibreDTE decides it so
 * (libredte-lib-core, src/Package/Billing/Component/Integration/Support/Response/SiiDte/
 * CheckXmlDocumentSentStatusResponse.php, `getEstadoEnvioSii`: RECHAZADO as soon as one document
 * was, then REPARO, else ACEPTADO). The per-type counts still say which documents were accepted.
 */
export function resultadoOf(estado: string, counts: TypeCounts[]): Resultado {
  if (REJECTED.has(estado)) return "rechazado";
  if (WITH_OBJECTIONS.has(estado)) return "aceptado_con_reparos";
  if (!PROCESSED.has(estado)) return "procesando";
  const total = (key: keyof TypeCounts) => counts.reduce((sum, c) => sum + c[key], 0);
  if (total("rechazados") > 0) return "rechazado";
  return total("reparos") > 0 ? "aceptado_con_reparos" : "aceptado";
}

const COUNT_FIELDS = ["INFORMADOS", "ACEPTADOS", "RECHAZADOS", "REPAROS"] as const;

/**
 * The body's repeated TIPO_DOCTO … REPAROS groups, in order (LibreDTE's `parseDocumentos` pairs
 * them by position the same way). Each group must be whole and numeric, and its counts must add
 * up: accepted + rejected + repaired = informed. Whether the SII also counts the repaired among
 * ACEPTADOS is not public (inferred), so accepted + rejected = informed is read as well; any other
 * sum is an answer the gateway does not understand.
 */
export function parseCounts(body: string): TypeCounts[] {
  const field = (name: string) => elementsInner(body, name).map((v) => v.trim());
  const tipos = field("TIPO_DOCTO");
  const columns = COUNT_FIELDS.map(field);
  const excerpt = body.slice(0, 300);
  for (const [i, name] of COUNT_FIELDS.entries()) {
    if (columns[i]?.length !== tipos.length) {
      throw formatChanged("envio_status", `${tipos.length} TIPO_DOCTO but ${columns[i]?.length ?? 0} ${name}`, excerpt);
    }
  }
  return tipos.map((tipoText, i) => {
    const [informados, aceptados, rechazados, reparos] = columns.map((column) => column[i] ?? "");
    const numbers = [tipoText, informados, aceptados, rechazados, reparos].map((v) => (/^\d+$/.test(v ?? "") ? Number(v) : Number.NaN));
    if (numbers.some((v) => Number.isNaN(v)))
      throw formatChanged("envio_status", `a count of type ${tipoText} is not a whole number`, excerpt);
    const [tipo = 0, inf = 0, acc = 0, rch = 0, rep = 0] = numbers;
    if (tipos.indexOf(tipoText) !== i) throw formatChanged("envio_status", `type ${tipo} is counted twice`, excerpt);
    return addingUp("envio_status", { tipo, informados: inf, aceptados: acc, rechazados: rch, reparos: rep }, excerpt);
  });
}

/**
 * A type's counts when they add up: accepted + rejected + repaired = informed, or accepted + rejected =
 * informed (whether the SII counts the repaired among the accepted is not public, inferred); else
 * SII_FORMAT_CHANGED of `service`.
 */
export function addingUp(service: string, counts: TypeCounts, excerpt: string): TypeCounts {
  const { tipo, informados: inf, aceptados: acc, rechazados: rch, reparos: rep } = counts;
  if (acc + rch + rep !== inf && acc + rch !== inf)
    throw formatChanged(service, `type ${tipo}: ${acc} accepted + ${rch} rejected + ${rep} repaired is not the ${inf} informed`, excerpt);
  return counts;
}

// QueryEstUp's `-11` says only "see ERR_CODE, SQL_CODE, SRV_CODE" in RESP_HDR; the texts are the
// SII's, as LibreDTE tabulates them (libredte-lib-core,
// src/Package/Billing/Component/Integration/Support/Response/SiiDte/CheckXmlDocumentSentStatusResponse.php).
const SRV_CODES: Record<string, string> = { "0": "Todo Ok", "1": "Error en Entrada", "2": "Error SQL" };
const SQL_CODES: Record<string, string> = { "0": "Schema Validado" };
const ERR_CODES: Record<string, string> = {
  "0": "Se retorna el estado",
  "1": "El envío no es de la Empresa, faltan parámetros de entrada.",
  "2": "Error de Proceso",
};

export interface EstUpFailure {
  err_code: string | null;
  sql_code: string | null;
  srv_code: string | null;
  /** The codes' texts in LibreDTE's order (SRV, SQL, ERR), e.g. "Error de Proceso". */
  text: string;
}

/** Reads a `-11` answer's subcodes from its RESP_HDR. */
export function decodeEstUpFailure(xml: string): EstUpFailure {
  const header = elementInner(xml, "RESP_HDR") ?? xml;
  const code = (name: string) => elementText(header, name)?.trim() || null;
  const [srv, sql, err] = [code("SRV_CODE"), code("SQL_CODE"), code("ERR_CODE")];
  const texts = [
    [srv, SRV_CODES, "SRV_CODE"],
    [sql, SQL_CODES, "SQL_CODE"],
    [err, ERR_CODES, "ERR_CODE"],
  ] as const;
  const text = texts
    .filter(([value]) => value !== null)
    .map(([value, table, name]) => table[value ?? ""] ?? `Error ${name} #${value}`)
    .join(" ");
  return { err_code: err, sql_code: sql, srv_code: srv, text };
}

/** ERR_CODE 1 alone: the SII's definitive "the envelope is not the company's". */
function notTheCompanys(failure: EstUpFailure): boolean {
  const serverFault = [failure.srv_code, failure.sql_code].some((c) => c !== null && c !== "0");
  return failure.err_code === "1" && !serverFault;
}

/**
 * `-11` is a failure of the query, not "no such envelope": LibreDTE reads it as ERR_CODE 2 "Error
 * de Proceso" (its live test gets exactly that for a track id of the other ambiente), devlas-cl/dte-sii
 * (EnviadorSII.js) as "Error de consulta SII … Reintente más tarde". Only ERR_CODE 1 alone, the
 * SII's "the envelope is not the company's", is a definitive answer.
 */
function queryFailed(xml: string, trackId: string, emisor: string): ApiError {
  const failure = decodeEstUpFailure(xml);
  const details = {
    service: "envio_status",
    sii_estado: "-11",
    sii_message: failure.text || elementText(elementInner(xml, "RESP_HDR") ?? xml, "GLOSA"),
    sii_err_code: failure.err_code,
    sii_sql_code: failure.sql_code,
    sii_srv_code: failure.srv_code,
  };
  if (notTheCompanys(failure)) {
    return new ApiError(404, "HTTP_404", `The SII says envelope ${trackId} is not of ${emisor}`, { details });
  }
  return new ApiError(
    502,
    "SII_GATEWAY_ERROR",
    `The SII could not answer the status query (-11: ${failure.text || "no subcode"}); retry later. The SII also answers this for a track id it does not know in this ambiente`,
    { details },
  );
}

export async function queryUploadStatus(
  ctx: SiiContext,
  ambiente: Ambiente,
  token: string,
  emisor: string,
  trackId: string,
): Promise<UploadStatus> {
  const [rut = "", dv = ""] = emisor.split("-");
  const ask = () =>
    soapCall(ctx, {
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
  let answer = await ask();
  // Any other `-11` is the SII's "try again" (devlas-cl/dte-sii EnviadorSII.js: "Reintente más
  // tarde"); the status query is a read, so it is asked once more before the 502.
  if (answer.estado === "-11" && !notTheCompanys(decodeEstUpFailure(answer.xml))) answer = await ask();
  const { estado, glosa } = answer;
  if (TOKEN_ESTADOS.has(estado)) throw new TokenRejected(glosa ?? estado);
  const details = { service: "envio_status", sii_estado: estado, sii_message: glosa };
  if (estado === "-11") throw queryFailed(answer.xml, trackId, emisor);
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

/** QueryEstDteAv (docs/sii-services.md §8.4): the SII's own check of a document, its signature included. */
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
  return readDocumentStatus(answer.xml, doc.emisor);
}

/** Document states QueryEstDteAv answers (LibreDTE, ValidateDocumentSignatureResponse.php). */
const DOCUMENT_ESTADOS = /^(DOK|DNK|FAU|FNA|FAN|EMP|TMD|TMC|MMD|MMC|AND|ANC)$/;
/** ERR_CODE texts of QueryEstDteAv, as LibreDTE tabulates them (same file). */
const DTE_AV_ERR_CODES: Record<string, string> = {
  "3": "Error Interno (ver glosa)",
  "5": "Error parámetros de entrada (ver glosa)",
  "9": "Usuario no autorizado en empresa",
};

/**
 * QueryEstDteAv's answer: LibreDTE reads ESTADO from RESP_HDR, else from RESP_BODY
 * (`$headers['ESTADO'] ?? $body['ESTADO']`), and lists ERR_CODE 1/2 as token errors and 9 as
 * "Usuario no autorizado en empresa"; the other codes are the SII's internal errors.
 */
export function readDocumentStatus(xml: string, emisor: string): SiiDocumentStatus {
  const header = elementInner(xml, "RESP_HDR") ?? "";
  const body = elementInner(xml, "RESP_BODY") ?? "";
  const text = (part: string, name: string) => elementText(part, name)?.trim() || null;
  const headerEstado = text(header, "ESTADO");
  const bodyEstado = text(body, "ESTADO");
  // Without ERR_CODE, a one- or two-digit ESTADO carries the same code (the gateway's earlier reading).
  const errCode = text(header, "ERR_CODE") ?? (/^\d{1,2}$/.test(headerEstado ?? "") ? headerEstado : null);
  const glosa = text(header, "GLOSA_ERR") ?? text(header, "GLOSA");
  if (["001", "002", "003"].includes(headerEstado ?? "") || errCode === "1" || errCode === "2") {
    throw new TokenRejected(glosa ?? headerEstado ?? `ERR_CODE ${errCode}`);
  }
  const details = { service: "document_status", sii_estado: headerEstado ?? bodyEstado, sii_err_code: errCode, sii_message: glosa };
  if (errCode === "9") throw new ApiError(403, "AUTH_ERROR", `The certificate's holder may not query documents of ${emisor}`, { details });
  const estado = [headerEstado, bodyEstado].find((e) => e !== null && DOCUMENT_ESTADOS.test(e));
  if ((errCode !== null && errCode !== "0") || !estado) {
    const reason = glosa ?? DTE_AV_ERR_CODES[errCode ?? ""] ?? (errCode ? `ERR_CODE ${errCode}` : (headerEstado ?? "no state"));
    throw new ApiError(502, "SII_GATEWAY_ERROR", `The SII refused the document query: ${reason}`, { details });
  }
  return {
    recibido: text(body, "RECIBIDO")?.toUpperCase() === "SI",
    estado,
    glosa: text(body, "GLOSA") ?? glosa,
    track_id: text(body, "TRACKID"),
  };
}
