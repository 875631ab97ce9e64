// What the simulated SII keeps per service, as types only: the state holds these records and the
// services read and write them, so neither needs to import the other.

export interface FolioRange {
  desde: number;
  hasta: number;
  fecha: string;
  mandatario: string;
  caf?: string;
}

export interface FolioBook {
  ranges: FolioRange[];
  used: Set<number>;
  annulled: Set<number>;
}

export interface BheSlip {
  codigo: string;
  emisor: string;
  nro_boleta: number;
  fecha: string;
  receptor_rut: string;
  receptor_nombre: string;
  receptor_email: string;
  bruto: number;
}

export interface SummaryEntry {
  totDoc: number;
  mntExe: number;
  mntNeto: number;
  mntIva: number;
  mntTotal: number;
  dias?: Record<string, unknown>[];
}

export interface DocumentEvent {
  codigo: string;
  responsable: string;
  at: number;
}

/** A document the simulated SII has received, keyed by `ambiente|emisor|tipo|folio`. */
export interface ReceivedDocument {
  emisor: string;
  receptor: string;
  tipo: number;
  folio: number;
  recibido: number;
  events: DocumentEvent[];
  /** What the SII recorded of an uploaded document (checked by QueryEstDteAv). */
  fecha?: string;
  monto?: number;
  firma?: string;
  trackId?: string;
}

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
  /** SHA-256 of the file, to refuse the same file twice. */
  digest?: string;
  /** Taken by the boleta service (its track ids are unknown to QueryEstUp, and the other way round). */
  boleta?: boolean;
  documents: EnvioDocument[];
}

export type SetState = "POR REALIZAR" | "EN REVISION" | "REVISADO CONFORME" | "RECHAZADO";

export interface CertificationSet {
  nombre: string;
  numero: string;
  /** Case numbers (`4943173-1`…) an envelope must carry, in their Referencia (RazonRef `CASO …`). */
  casos: string[];
  estado: SetState;
  /** The envelope declared for this set, and why it was rejected. */
  trackId?: string;
  motivo?: string;
}

export interface Certification {
  postulada: number;
  email: string;
  emailIntercambio: string;
  software: string;
  /** The application form's boxes that were checked (ESFAC, FACT, ESBOL, …). */
  documentos: string[];
  sets: CertificationSet[];
  boletas?: CertificationSet;
  /** The boleta application was asked for the company's application (obtenerPostulacionSeg) before a download. */
  boletaPostulacionVista?: boolean;
}

export interface BteSlip {
  emisor: string;
  folio: number;
  fecha: string; // YYYY-MM-DD
  anulada: boolean;
  bruto: number;
}
