// The boleta REST service (docs/sii-services.md §11.2): an EnvioBOLETA goes to rahue/pangal as the same
// ordered multipart as DTEUpload, with the boleta token as a cookie and a `PROG 1.0` agent; the
// answers are JSON. 401 means the token (or agent) was not accepted.
import { ApiError } from "../lib/api-error.ts";
import { addingUp, resultadoOf, type TypeCounts, type UploadStatus } from "./envios.ts";
import { multipart, type Received, UPLOAD_USER_AGENT, type Upload } from "./envios-upload.ts";
import { formatChanged } from "./format-changed.ts";
import { type Ambiente, siiHosts } from "./hosts.ts";
import { pageText, type SiiContext, siiFetch } from "./http.ts";
import { TokenRejected } from "./token.ts";

function parseJson(text: string, service: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    if (value && typeof value === "object") return value as Record<string, unknown>;
  } catch {}
  throw new ApiError(502, "SII_GATEWAY_ERROR", "The SII's boleta service answered something that is not its JSON", {
    details: { service, sii_message: pageText(text) },
  });
}

export async function uploadBoletas(ctx: SiiContext, ambiente: Ambiente, token: string, upload: Upload): Promise<Received> {
  const boundary = `----SiiGateway${crypto.randomUUID().replaceAll("-", "")}`;
  const request = new Request(`https://${siiHosts(ambiente).boletaUpload}/recursos/v1/boleta.electronica.envio`, {
    method: "POST",
    headers: {
      "content-type": `multipart/form-data; boundary=${boundary}`,
      "user-agent": UPLOAD_USER_AGENT,
      accept: "application/json",
      cookie: `TOKEN=${token}`,
    },
    body: multipart(upload, boundary),
  });
  const service = "boleta_upload";
  const answer = await siiFetch(ctx, request, { service, read: false });
  if (answer.status === 401) throw new TokenRejected(pageText(answer.text) || "HTTP 401");
  if (answer.status !== 200) {
    const text = pageText(answer.text);
    const earlier = /trackid\s+(\d+)/i.exec(text)?.[1];
    const details = { service, sii_status: answer.status, sii_message: text };
    if (earlier)
      throw new ApiError(409, "ALREADY_SUBMITTED", "The SII already received this file", { details: { ...details, track_id: earlier } });
    if (/no esta autorizad/i.test(text)) throw new ApiError(403, "AUTH_ERROR", `The SII refused the upload: ${text}`, { details });
    throw new ApiError(502, "SII_GATEWAY_ERROR", `The SII refused the upload: ${text}`, { details });
  }
  const json = parseJson(answer.text, service);
  if (json.trackid === undefined || json.trackid === null) {
    throw new ApiError(502, "SII_GATEWAY_ERROR", "The SII accepted the upload but gave no track id", {
      details: { service, sii_message: answer.text.slice(0, 500) },
    });
  }
  return {
    track_id: String(json.trackid),
    timestamp: typeof json.fecha_recepcion === "string" ? json.fecha_recepcion : null,
    archivo: String(json.file ?? upload.fileName),
  };
}

const COUNT_KEYS = ["tipo", "informados", "aceptados", "rechazados", "reparos"] as const;

/** A count as the SII writes it: a JSON whole number (the documented answer and the real capture, §11.2); a string of digits is read too (inferred). */
const wholeNumber = (value: unknown): number | null =>
  typeof value === "number" && Number.isInteger(value) && value >= 0
    ? value
    : typeof value === "string" && /^\d+$/.test(value)
      ? Number(value)
      : null;

/**
 * `estadistica[]` as QueryEstUp's counts are read (envios.ts `parseCounts`): per type every count present
 * and whole, each type once, adding up. A processed envelope (`EPR`) counts its boletas: without a list
 * of counts it cannot say none was rejected (inferred from the documented answer, which always has one).
 */
function boletaCounts(rows: unknown, estado: string): TypeCounts[] {
  const service = "boleta_status";
  const excerpt = JSON.stringify(rows ?? null).slice(0, 300);
  if (rows !== undefined && rows !== null && !Array.isArray(rows)) throw formatChanged(service, "estadistica is not a list", excerpt);
  const list: unknown[] = Array.isArray(rows) ? rows : [];
  if (estado === "EPR" && list.length === 0) throw formatChanged(service, "a processed envelope (EPR) without estadistica counts", excerpt);
  const seen = new Set<number>();
  return list.map((row, i) => {
    if (!row || typeof row !== "object") throw formatChanged(service, `estadistica[${i}] is not a type's counts`, excerpt);
    const [tipo = 0, informados = 0, aceptados = 0, rechazados = 0, reparos = 0] = COUNT_KEYS.map((key) => {
      const value = (row as Record<string, unknown>)[key];
      if (value === undefined || value === null) throw formatChanged(service, `estadistica[${i}].${key} is missing`, excerpt);
      const count = wholeNumber(value);
      if (count === null) throw formatChanged(service, `estadistica[${i}].${key} is not a whole number`, excerpt);
      return count;
    });
    if (seen.has(tipo)) throw formatChanged(service, `type ${tipo} is counted twice`, excerpt);
    seen.add(tipo);
    return addingUp(service, { tipo, informados, aceptados, rechazados, reparos }, excerpt);
  });
}

export interface BoletaRejection {
  tipo: number;
  folio: number;
  estado: string;
  descripcion: string | null;
  errores: { seccion: string | null; codigo: number | string | null; descripcion: string | null; detalle: string | null }[];
}

/** GET boleta.electronica.envio/{rut}-{dv}-{trackid}: the state, the counts and each rejected or objected boleta. */
export async function boletaUploadStatus(
  ctx: SiiContext,
  ambiente: Ambiente,
  token: string,
  emisor: string,
  trackId: string,
): Promise<UploadStatus & { detalle: BoletaRejection[] | null }> {
  const service = "boleta_status";
  const url = `https://${siiHosts(ambiente).boletaApi}/recursos/v1/boleta.electronica.envio/${emisor}-${Number(trackId)}`;
  const answer = await siiFetch(
    ctx,
    new Request(url, { headers: { accept: "application/json", "user-agent": UPLOAD_USER_AGENT, cookie: `TOKEN=${token}` } }),
    { service, read: true },
  );
  if (answer.status === 401) throw new TokenRejected(pageText(answer.text) || "HTTP 401");
  const details = { service, sii_status: answer.status, sii_message: pageText(answer.text) };
  if (answer.status === 404) throw new ApiError(404, "HTTP_404", `The SII has no boleta envelope ${trackId} of ${emisor}`, { details });
  if (answer.status === 400 && /autorizad/i.test(answer.text))
    throw new ApiError(403, "AUTH_ERROR", `The certificate's holder may not query envelopes of ${emisor}`, { details });
  if (answer.status !== 200)
    throw new ApiError(502, "SII_GATEWAY_ERROR", `The SII refused the status query (HTTP ${answer.status})`, { details });
  const json = parseJson(answer.text, service);
  const estado = String(json.estado ?? "");
  const counts = boletaCounts(json.estadistica, estado);
  const detalle = Array.isArray(json.detalle_rep_rech)
    ? json.detalle_rep_rech.map((row: Record<string, unknown>) => ({
        tipo: Number(row.tipo),
        folio: Number(row.folio),
        estado: String(row.estado ?? ""),
        descripcion: typeof row.descripcion === "string" ? row.descripcion : null,
        errores: (Array.isArray(row.error) ? row.error : []).map((e: Record<string, unknown>) => ({
          seccion: typeof e.seccion === "string" ? e.seccion : null,
          codigo: typeof e.codigo === "number" || typeof e.codigo === "string" ? e.codigo : null,
          descripcion: typeof e.descripcion === "string" ? e.descripcion : null,
          detalle: typeof e.detalle === "string" ? e.detalle : null,
        })),
      }))
    : null;
  return {
    track_id: String(json.trackid ?? trackId),
    estado,
    glosa: null,
    resultado: resultadoOf(estado, counts),
    documentos: counts,
    num_atencion: null,
    detalle,
  };
}
