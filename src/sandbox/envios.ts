// Envelopes the simulated SII has received and their processing (sii-upstream §8.2): each moves
// REC → SOK → FOK → PDR → EPR one step at a time, or stops at its rejection (RSC schema, RFR
// signature, RCT carátula); once processed, each document is accepted, accepted with objections
// or rejected. QueryEstUp reports the envelope's state and the counts per document type.
import { rutCheckDigit } from "../lib/rut.ts";
import { elementText, escapeXml } from "../lib/xml.ts";
import { soapReturn } from "./soap.ts";
import type { SandboxState } from "./state.ts";
import { mayActFor } from "./taxpayers.ts";

/** How long each processing step takes in the sandbox. */
export const ENVIO_STEP_MS = 1000;
const STEPS = ["REC", "SOK", "FOK", "PDR", "EPR"] as const;

export const ENVIO_GLOSAS: Record<string, string> = {
  REC: "Envio Recibido Conforme",
  SOK: "Schema Validado",
  CRT: "Caratula OK",
  FOK: "Firma de Envio Validada",
  PDR: "Envio en Proceso",
  EPR: "Envio Procesado",
  RSC: "Rechazado por Error en Schema",
  RFR: "Rechazado por Error en Firma",
  RCT: "Rechazado por Error en Caratula",
};

export interface EnvioDocument {
  tipo: number;
  folio: number;
  /** DOK accepted, RPR accepted with objections, RCH rejected. */
  estado: "DOK" | "RPR" | "RCH";
  motivo?: string;
}

export interface Envio {
  trackId: string;
  ambiente: "0" | "1";
  emisor: string;
  sender: string;
  file: string;
  received: number;
  /** Where processing stops when the envelope itself is refused. */
  rejection?: "RSC" | "RFR" | "RCT";
  detail?: string;
  documents: EnvioDocument[];
}

/** The envelope's state at `now`: one step per ENVIO_STEP_MS, halting at its rejection. */
export function envioEstado(envio: Envio, now: number): string {
  const step = Math.min(STEPS.length - 1, Math.floor((now - envio.received) / ENVIO_STEP_MS));
  if (envio.rejection) {
    const at = { RSC: 1, RCT: 2, RFR: 2 }[envio.rejection];
    if (step >= at) return envio.rejection;
  }
  return STEPS[step] ?? "REC";
}

/** Envelopes the company sent before (processed), so the status query has history to show. */
export function seedEnvios(state: SandboxState, now: number): void {
  const company = "76192083-9";
  const long = now - 30 * 24 * 60 * 60 * 1000;
  const seeds: Omit<Envio, "ambiente" | "emisor" | "sender" | "received">[] = [
    {
      trackId: "0260000001",
      file: "envio_accepted.xml",
      documents: [11, 12, 13].map((folio) => ({ tipo: 33, folio, estado: "DOK" as const })),
    },
    {
      trackId: "0260000002",
      file: "envio_mixed.xml",
      documents: [
        { tipo: 33, folio: 14, estado: "DOK" },
        { tipo: 33, folio: 15, estado: "RCH", motivo: "DTE-3-505 Firma DTE Incorrecta" },
        { tipo: 61, folio: 1, estado: "RPR", motivo: "REF-3-415 Referencia sin fecha de documento" },
      ],
    },
    {
      trackId: "0260000003",
      file: "envio_bad_signature.xml",
      rejection: "RFR",
      detail: "Firma del envio no valida",
      documents: [{ tipo: 33, folio: 16, estado: "RCH" }],
    },
  ];
  for (const ambiente of ["0", "1"] as const) {
    for (const seed of seeds) {
      const trackId = ambiente === "0" ? seed.trackId : `1${seed.trackId.slice(1)}`;
      state.envios.set(trackId, { ...seed, trackId, ambiente, emisor: company, sender: "11111111-1", received: long });
    }
  }
}

function statusAnswer(body: string, hdr: string): Response {
  const inner = `<?xml version="1.0" encoding="UTF-8"?><SII:RESPUESTA xmlns:SII="http://www.sii.cl/XMLSchema"><SII:RESP_BODY>${body}</SII:RESP_BODY><SII:RESP_HDR>${hdr}</SII:RESP_HDR></SII:RESPUESTA>`;
  return soapReturn("getEstUp", inner);
}

/** Per-type counts of a processed envelope, in first-seen type order (informados = the other three). */
function countsByType(envio: Envio): string {
  const types = [...new Set(envio.documents.map((d) => d.tipo))];
  return types
    .map((tipo) => {
      const docs = envio.documents.filter((d) => d.tipo === tipo);
      const count = (estado: EnvioDocument["estado"]) => docs.filter((d) => d.estado === estado).length;
      return `<TIPO_DOCTO>${tipo}</TIPO_DOCTO><INFORMADOS>${docs.length}</INFORMADOS><ACEPTADOS>${count("DOK")}</ACEPTADOS><RECHAZADOS>${count("RCH")}</RECHAZADOS><REPAROS>${count("RPR")}</REPAROS>`;
    })
    .join("");
}

/** QueryEstUp getEstUp(RutCompania, DvCompania, TrackId, Token). */
export function queryEstUp(state: SandboxState, requestXml: string, ambiente: "0" | "1", now: number): Response {
  const token = state.tokens.get(elementText(requestXml, "Token") ?? "");
  if (!token || token.expiresAt < now || token.ambiente !== ambiente) {
    return statusAnswer("", "<ESTADO>003</ESTADO><GLOSA>TOKEN NO EXISTE</GLOSA>");
  }
  const rut = (elementText(requestXml, "RutCompania") ?? "").trim();
  const dv = (elementText(requestXml, "DvCompania") ?? "").trim().toUpperCase();
  const trackId = (elementText(requestXml, "TrackId") ?? "").trim();
  if (!/^\d{1,8}$/.test(rut) || rutCheckDigit(rut) !== dv)
    return statusAnswer("", "<ESTADO>-4</ESTADO><GLOSA>Error en Rut de la Empresa</GLOSA>");
  const company = `${rut}-${dv}`;
  if (!mayActFor(token.rut, company)) return statusAnswer("", "<ESTADO>-6</ESTADO><GLOSA>Usuario no autorizado</GLOSA>");
  const envio = [...state.envios.values()].find(
    (e) => e.ambiente === ambiente && e.emisor === company && Number(e.trackId) === Number(trackId),
  );
  if (!envio) {
    return statusAnswer(
      "",
      `<TRACKID>${escapeXml(trackId)}</TRACKID><ESTADO>-11</ESTADO><GLOSA>No existe el TrackId para la empresa</GLOSA>`,
    );
  }
  const estado = envioEstado(envio, now);
  const atencion = `<NUM_ATENCION>${(now % 100000).toString().padStart(5, "0")}</NUM_ATENCION>`;
  const hdr = `<TRACKID>${envio.trackId}</TRACKID><ESTADO>${estado}</ESTADO><GLOSA>${escapeXml(ENVIO_GLOSAS[estado] ?? "")}</GLOSA>${atencion}`;
  return statusAnswer(estado === "EPR" ? countsByType(envio) : "", hdr);
}
