// What the simulated SII remembers, per process (per isolate on Workers): seeds and tokens it
// issued, web sessions, switched-on faults, and how many requests each service received.

import { SANDBOX_FAULT_KINDS, type SandboxFault, type SandboxFaultKind, type SandboxReplay } from "../ports/sandbox.ts";
import type { BheSlip, BteSlip, Certification, Envio, FolioBook, ReceivedDocument, SummaryEntry } from "./records.ts";

export type FaultKind = SandboxFaultKind;
export const FAULT_KINDS: readonly FaultKind[] = SANDBOX_FAULT_KINDS;

export type Fault = SandboxFault;

export interface IssuedToken {
  rut: string;
  ambiente: "0" | "1";
  expiresAt: number;
}

export interface WebSession {
  /** The taxpayer the session acts as. */
  rut: string;
  /** Who logged in: the same RUT, or the representative whose certificate opened it. */
  holder: string;
  kind: "clave" | "cert";
  expiresAt: number;
}

/** What the rough schedule did, in order (tests and a failing run's reproduction read it). */
export type RoughEvent =
  | { kind: "session_expired"; service: string; rut: string }
  | { kind: "transient"; service: string; answer: "DTE-OFGA" | "-11" | "http_500" }
  | { kind: "quirk"; service: string; quirk: PageQuirk };

export type PageQuirk = "no_closing_html" | "no_charset" | "trailing_bytes";

/** The rough schedule (rough.ts) as the simulator calls it around each service's answer. */
export interface Rough {
  readonly seed: number;
  readonly events: readonly RoughEvent[];
  beforeCall(service: string, request: Request, sessions: Map<string, WebSession>, now: number): void;
  transient(service: string, request: Request, state: SandboxState): Promise<Response | null>;
  quirk(service: string, res: Response): Promise<Response>;
}

const NULL_BODY_STATUS = new Set([204, 205, 304]);

export class SandboxState {
  readonly seeds = new Map<string, { ambiente: "0" | "1"; expiresAt: number }>();
  readonly tokens = new Map<string, IssuedToken>();
  /** Tokens of the boleta REST service (a separate series: neither kind is accepted by the other). */
  readonly boletaTokens = new Map<string, IssuedToken>();
  readonly sessions = new Map<string, WebSession>();
  /** Certificate logins waiting at the "ESCOJA COMO DESEA INGRESAR" page. */
  readonly pendingChoices = new Map<string, { holder: string; referencia: string; expiresAt: number }>();
  readonly calls = new Map<string, number>();
  /** How far `POST /sandbox/v1/clock` has moved the simulator's clock (and the gateway's, in sandbox mode) ahead, ms. */
  clockOffset = 0;
  /** Folio history per `ambiente|rut|tipo` (see folios.ts). */
  readonly folios = new Map<string, FolioBook>();
  /** Issued BHE slips, and the e-mails the simulated SII "sent". */
  readonly bhe: BheSlip[] = [];
  readonly bheEmails: { codigo: string; email: string }[] = [];
  /** RCV sales summaries entered by taxpayers, per `rut|periodo`, by document type; purchases' transaction types. */
  readonly rcvSummaries = new Map<string, Map<number, SummaryEntry>>();
  readonly rcvTransactionTypes = new Map<string, number>();
  /** RCV asynchronous download requests (getCtrlAsync). */
  readonly rcvJobs: {
    caId: number;
    rut: string;
    periodo: number;
    tipo: number;
    operacion: "COMPRA" | "VENTA";
    estado: string;
    created: number;
  }[] = [];
  /** Documents the SII has received, with their acceptance/claim events (see intercambios.ts). */
  readonly received = new Map<string, ReceivedDocument>();
  /** Envelopes received by upload, by track id (see envios.ts). */
  readonly envios = new Map<string, Envio>();
  /** Companies in the certification process, by RUT (see certificacion.ts). */
  readonly certifications = new Map<string, Certification>();
  /** Issued BTE slips. */
  readonly bte: BteSlip[] = [];
  faults: Fault[] = [];
  /** Recorded answers to give instead of the simulator's own (POST /sandbox/v1/replays). */
  replays: SandboxReplay[] = [];
  /**
   * Test hook: web sessions get `CSESSIONID` and no `TOKEN` (a public PHP client,
   * jsanbae/sii_api src/Endpoints/BHE.php, keeps CSESSIONID alone), so the gateway meets a session
   * whose token is only there.
   */
  csessionidOnly = false;
  /**
   * The rough schedule (rough.ts), or null for the tidy sandbox. A test that asserts what rough mode
   * legitimately changes (exact SII call counts) sets it to null for itself, saying why.
   */
  rough: Rough | null = null;

  count(service: string): void {
    this.calls.set(service, (this.calls.get(service) ?? 0) + 1);
  }

  /** The fault that applies to this call, if any; each use counts down. */
  takeFault(service: string, host: string): FaultKind | null {
    const fault = this.faults.find((f) => f.remaining > 0 && (f.service === service || f.service === host));
    if (!fault) return null;
    fault.remaining--;
    this.faults = this.faults.filter((f) => f.remaining > 0);
    return fault.fault;
  }

  /** The recorded answer this call gets, if one is queued for its service; each use counts down. */
  takeReplay(service: string): Response | null {
    const replay = this.replays.find((r) => r.remaining > 0 && r.service === service);
    if (!replay) return null;
    replay.remaining--;
    this.replays = this.replays.filter((r) => r.remaining > 0);
    // A status that has no body (204, 205, 304) is given without one.
    const body = NULL_BODY_STATUS.has(replay.status) ? null : replay.body.slice();
    return new Response(body, { status: replay.status, headers: replay.headers });
  }

  /** The live web session a request's TOKEN (or CSESSIONID) cookie names, if any. */
  sessionOf(cookieHeader: string | undefined, now: number): WebSession | null {
    const token = sessionTokenOf(cookieHeader);
    const session = token ? this.sessions.get(token) : undefined;
    return session && session.expiresAt > now ? session : null;
  }

  /** Test hook: makes every token issued so far unknown, as the SII does at times. */
  forgetTokens(): void {
    this.tokens.clear();
    this.boletaTokens.clear();
  }
}

/** The web session's token a request carries: its TOKEN cookie, or CSESSIONID (the same value) when only that was set. */
export function sessionTokenOf(cookieHeader: string | undefined): string | undefined {
  const cookie = (name: string) => new RegExp(`(?:^|;\\s*)${name}=([^;]+)`).exec(cookieHeader ?? "")?.[1];
  return cookie("TOKEN") ?? cookie("CSESSIONID");
}
