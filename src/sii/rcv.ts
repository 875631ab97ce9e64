// The RCV's JSON facade at www4.sii.cl (sii-upstream §7): an envelope whose conversationId is the
// session TOKEN, answers whose respEstado says how it went, HTML when the session is gone.
import { ApiError } from "../platform/errors.ts";
import type { CookieJar } from "./cookies.ts";
import { pageText, type SiiContext, siiFetch } from "./http.ts";
import { SessionExpired } from "./sessions.ts";

const FACADE = "https://www4.sii.cl/consdcvinternetui/services/data/facadeService";
const NAMESPACE = "cl.sii.sdi.lob.diii.consdcv.data.api.interfaces.FacadeService";

export type FacadeAnswer = Record<string, unknown> & { respEstado?: { codRespuesta?: number; msgeRespuesta?: string | null } };

/** Calls a facade method; codRespuesta 0, 1 and 3 (no documents) are answers, the rest errors. */
export async function rcvCall(ctx: SiiContext, jar: CookieJar, method: string, data: Record<string, unknown>): Promise<FacadeAnswer> {
  const url = `${FACADE}/${method}`;
  const body = JSON.stringify({
    metaData: {
      namespace: `${NAMESPACE}/${method}`,
      conversationId: jar.get("TOKEN") ?? "",
      transactionId: crypto.randomUUID(),
      page: null,
    },
    data,
  });
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/plain, */*",
    origin: "https://www4.sii.cl",
    referer: "https://www4.sii.cl/consdcvinternetui/",
    cookie: jar.header(url),
  };
  const answer = await siiFetch(ctx, new Request(url, { method: "POST", headers, body }), { service: `rcv_${method}`, read: true });
  jar.store(url, answer.headers);
  let json: FacadeAnswer;
  try {
    json = JSON.parse(answer.text) as FacadeAnswer;
  } catch {
    // The facade answers its login page as HTML when the session is not (or no longer) valid.
    throw new SessionExpired();
  }
  if (typeof json.errorMsg === "string") {
    throw new ApiError(502, "SII_GATEWAY_ERROR", "The SII's RCV refused the request", {
      details: { service: `rcv_${method}`, sii_message: json.errorMsg },
    });
  }
  const code = json.respEstado?.codRespuesta;
  const message = json.respEstado?.msgeRespuesta ?? null;
  if (code === 0 || code === 1 || code === 3) return json;
  if (code === 98) throw new SessionExpired();
  if (/no autorizado/i.test(message ?? "")) {
    throw new ApiError(403, "AUTH_ERROR", "The credentials have no access to this taxpayer's register", {
      details: { service: `rcv_${method}`, sii_code: code, sii_message: message },
    });
  }
  throw new ApiError(502, "SII_GATEWAY_ERROR", "The SII's RCV answered with an error", {
    details: { service: `rcv_${method}`, sii_code: code ?? null, sii_message: message ?? pageText(answer.text) },
  });
}

export interface ResumenRow {
  tipo_documento: number;
  nombre_documento: string;
  /** DET_ELE (electronic, with detail), DET_PAP (paper) or RESUMEN (totals only, e.g. boletas). */
  tipo_ingreso: string;
  documentos: number;
  monto_exento: number;
  monto_neto: number;
  monto_iva: number;
  monto_iva_no_recuperable: number;
  iva_uso_comun: number;
  monto_total: number;
  /** Credit notes come with positive amounts: subtract them. */
  nota_credito: boolean;
}

const CREDIT_NOTES = new Set([60, 61, 112]);
const n = (value: unknown) => (typeof value === "number" ? value : Number(value ?? 0) || 0);

export function resumenRows(answer: FacadeAnswer): ResumenRow[] {
  const rows = Array.isArray(answer.data) ? (answer.data as Record<string, unknown>[]) : [];
  return rows.map((row) => ({
    tipo_documento: n(row.rsmnTipoDocInteger),
    nombre_documento: String(row.dcvNombreTipoDoc ?? ""),
    tipo_ingreso: String(row.dcvTipoIngresoDoc ?? ""),
    documentos: n(row.rsmnTotDoc),
    monto_exento: n(row.rsmnMntExe),
    monto_neto: n(row.rsmnMntNeto),
    monto_iva: n(row.rsmnMntIVA),
    monto_iva_no_recuperable: n(row.rsmnMntIVANoRec),
    iva_uso_comun: n(row.rsmnIVAUsoComun),
    monto_total: n(row.rsmnMntTotal),
    nota_credito: CREDIT_NOTES.has(n(row.rsmnTipoDocInteger)),
  }));
}

export interface DetalleRow {
  tipo_documento: number;
  folio: number;
  /** The counterpart: the supplier in purchases, the customer in sales. */
  rut: string;
  razon_social: string;
  fecha: string;
  fecha_recepcion: string | null;
  monto_exento: number;
  monto_neto: number;
  monto_iva: number;
  monto_total: number;
  estado: string;
  nota_credito: boolean;
}

/** `DD/MM/YYYY[ HH:MM:SS]` → `YYYY-MM-DD[THH:MM:SS]`. */
export function isoDate(text: unknown): string | null {
  const match = /^(\d{2})\/(\d{2})\/(\d{4})(?: (\d{2}:\d{2}:\d{2}))?$/.exec(String(text ?? "").trim());
  if (!match) return null;
  return `${match[3]}-${match[2]}-${match[1]}${match[4] ? `T${match[4]}` : ""}`;
}

export function detalleRows(rows: Record<string, unknown>[]): DetalleRow[] {
  return rows.map((row) => ({
    tipo_documento: n(row.detTipoDoc),
    folio: n(row.detNroDoc),
    rut: `${row.detRutDoc}-${String(row.detDvDoc ?? "").toUpperCase()}`,
    razon_social: String(row.detRznSoc ?? ""),
    fecha: isoDate(row.detFchDoc) ?? String(row.detFchDoc ?? ""),
    fecha_recepcion: isoDate(row.detFecRecepcion),
    monto_exento: n(row.detMntExe),
    monto_neto: n(row.detMntNeto),
    monto_iva: n(row.detMntIVA),
    monto_total: n(row.detMntTotal),
    estado: String(row.dcvEstadoContab ?? ""),
    nota_credito: CREDIT_NOTES.has(n(row.detTipoDoc)),
  }));
}
