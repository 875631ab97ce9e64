// The rough sandbox (issue 24, item 5): a seeded schedule of the faults the real SII shows now and
// then, each of a kind the gateway is expected to absorb for that call, so a test's expected outcome
// never changes; only the recovery paths run. Off unless a seed is given (`npm run dev` stays
// deterministic); `npm run test:rough` runs the whole suite with one (test/support/rough-setup.ts).
//
// - A web session the SII drops before the gateway's 2 h cache expects it to: only before a read,
//   or before the first page of a write flow, where logging in again and starting over is safe.
// - A transient answer where the SII gives one: DTE-OFGA on the CAF download (devlas-cl/dte-sii
//   CafSolicitor.js retries it), QueryEstUp `-11` "Error de Proceso" (devlas EnviadorSII.js: "Reintente
//   más tarde"), an HTTP 500 on a read the gateway may retry. Never twice in a row for one service.
// - Page quirks: no closing `</body></html>` and no charset in the content type, both of which the
//   captured pages show (test/fixtures/sii/captured/FACTS.md: `Solicitud de timbraje.html`,
//   `Consulta tributaria 3ro.html`), and line breaks after `</html>` (no capture shows them; a reader
//   that anchors on the page's last bytes must not care).

import { concatBytes } from "../lib/encoding.ts";
import { decodeLatin1 } from "../lib/latin1.ts";
import { seededRandom } from "../lib/seeded-random.ts";
import { elementText } from "../lib/xml.ts";
import { estUpProcessError } from "./envios.ts";
import { cafQuirks } from "./folios-answers.ts";
import { latin1Html } from "./pages.ts";
import { type PageQuirk, type Rough, type RoughEvent, type SandboxState, sessionTokenOf, type WebSession } from "./state.ts";

/** Odds per eligible call: of an early session expiry, a transient answer, a page quirk. */
export interface RoughOdds {
  expire: number;
  transient: number;
  quirk: number;
}
const ODDS: RoughOdds = { expire: 0.2, transient: 0.2, quirk: 0.3 };
/** Requests a taxpayer's sessions serve, after an early expiry, before another may expire (a fresh session's use is never cut twice). */
const EXPIRY_COOLDOWN = 30;

/** Session pages where an expiry is safe to absorb: reads, and the first page of a write flow (service, method, path end). */
const EXPIRY_SAFE: readonly [string, string, RegExp][] = [
  ["bte_menu", "GET", /bte_indiv_cons$/],
  ["misii_home", "GET", /siihome\.cgi$/],
  ["misii_carta", "POST", /CViewCarta\.cgi$/],
  ["bhe_email_form", "GET", /PresentaDatosEnvio\.cgi$/],
  ["rcv_resumen", "POST", /getResumen$/],
  // Not the RCV detail nor its export: a large period is read in several requests while the answer
  // streams, and a session dropped after the first bytes went out can only abort it (rcv-facade.ts).
  ["rcv_boletas", "POST", /obtieneListaBoletasMes$/],
  // The stamping and the annulment start here; nothing irreversible has happened yet.
  ["caf_request", "GET", /of_solicita_folios$/],
  ["caf_annul", "GET", /af_anular1$/],
];

/** Reads the gateway retries once on a failed answer (SiiCall.read). */
const RETRIED_READS = new Set(["seed", "document_status", "misii_home", "misii_carta", "bte_menu", "boleta_seed"]);

const QUIRKS: readonly PageQuirk[] = ["no_closing_html", "no_charset", "trailing_bytes"];

export class RoughSchedule implements Rough {
  readonly seed: number;
  readonly events: RoughEvent[] = [];
  private readonly random: () => number;
  private readonly odds: RoughOdds;
  private readonly cooldown = new Map<string, number>();
  /** Services whose last call got a transient answer: their next one is served as is. */
  private readonly justFailed = new Set<string>();

  /** `odds`: tests that prove one recovery path set its odds to 1 and the others to 0. */
  constructor(seed: number, odds: Partial<RoughOdds> = {}) {
    this.seed = seed;
    this.random = seededRandom(seed);
    this.odds = { ...ODDS, ...odds };
  }

  private chance(odds: number): boolean {
    return this.random() < odds;
  }

  /**
   * Before a call is served: may drop the web session it carries (an early expiry), so the handler
   * answers the login wall the SII shows.
   */
  beforeCall(service: string, request: Request, sessions: Map<string, WebSession>, now: number): void {
    const token = sessionTokenOf(request.headers.get("cookie") ?? undefined);
    const session = token ? sessions.get(token) : undefined;
    if (!token || !session || session.expiresAt <= now) return;
    const key = `${session.rut}|${session.holder}|${session.kind}`;
    const left = this.cooldown.get(key) ?? 0;
    if (left > 0) {
      this.cooldown.set(key, left - 1);
      return;
    }
    const path = new URL(request.url).pathname;
    const safe = EXPIRY_SAFE.some(([name, method, end]) => name === service && method === request.method && end.test(path));
    if (!safe || !this.chance(this.odds.expire)) return;
    sessions.delete(token);
    this.cooldown.set(key, EXPIRY_COOLDOWN);
    this.events.push({ kind: "session_expired", service, rut: session.rut });
  }

  /** A transient answer instead of the real one, or null (a DTE-OFGA is queued for the download handler to give). */
  async transient(service: string, request: Request, state: SandboxState): Promise<Response | null> {
    if (this.justFailed.delete(service)) return null;
    const path = new URL(request.url).pathname;
    const download = service === "caf_download" && path.endsWith("of_genera_archivo");
    const eligible = download || service === "envio_status" || RETRIED_READS.has(service);
    if (!eligible || !this.chance(this.odds.transient)) return null;
    this.justFailed.add(service);
    if (download) {
      cafQuirks(state).ofga++;
      this.events.push({ kind: "transient", service, answer: "DTE-OFGA" });
      return null;
    }
    if (service === "envio_status") {
      this.events.push({ kind: "transient", service, answer: "-11" });
      return estUpProcessError(elementText(await request.clone().text(), "TrackId")?.trim() ?? "");
    }
    this.events.push({ kind: "transient", service, answer: "http_500" });
    return latin1Html("<h1>Error 500</h1><p>Internal Server Error</p>", 500);
  }

  /** The answer with one of the captured pages' quirks, sometimes (HTML pages only). */
  async quirk(service: string, res: Response): Promise<Response> {
    const type = res.headers.get("content-type") ?? "";
    if (res.status !== 200 || !/^text\/html/i.test(type) || !this.chance(this.odds.quirk)) return res;
    const quirk = QUIRKS[Math.floor(this.random() * QUIRKS.length)] ?? "trailing_bytes";
    const headers = new Headers(res.headers);
    headers.delete("content-length");
    if (quirk === "no_charset") {
      headers.set("content-type", type.replace(/;\s*charset=[^;]*/i, ""));
      this.events.push({ kind: "quirk", service, quirk });
      return new Response(res.body, { status: res.status, headers });
    }
    const bytes = new Uint8Array(await res.arrayBuffer());
    const text = decodeLatin1(bytes);
    const end = text.search(/<\/body>\s*<\/html>\s*$|<\/html>\s*$/i);
    if (end < 0) return new Response(bytes, { status: res.status, headers });
    const changed =
      quirk === "no_closing_html" ? bytes.slice(0, end) : concatBytes([bytes, new Uint8Array([0x0d, 0x0a, 0x0d, 0x0a, 0x0a])]);
    this.events.push({ kind: "quirk", service, quirk });
    return new Response(changed, { status: res.status, headers });
  }
}

/** One char per byte: positions in the text are positions in the bytes. */

let defaultSeed: number | null = null;

/** The seed sandboxes get when their creator names none (test/support/rough-setup.ts sets it); null: tidy. */
export function roughDefault(): number | null {
  return defaultSeed;
}

export function setRoughDefault(seed: number | null): void {
  defaultSeed = seed;
}

/** Reads SANDBOX_ROUGH_SEED: a whole number, or null when unset; anything else is refused by name. */
export function parseRoughSeed(value: string | undefined): number | null {
  if (value === undefined || value.trim() === "") return null;
  if (!/^\d{1,10}$/.test(value.trim())) throw new Error(`SANDBOX_ROUGH_SEED must be a whole number, not ${JSON.stringify(value)}`);
  return Number(value.trim()) >>> 0;
}
