// `documentos/generar` with the account's folio ledger: a document without `Folio` in a request
// without `caf` gets the next free folio of its issuer and type (the store's atomic allocate), a
// document naming its `Folio` takes that one (free, else 409) when the account holds a ledger of
// its type, and the CAFs the folios need come from the ledger. A retry with the same
// Idempotency-Key gets the same folios: generar is no write the idempotency layer replays (it
// reaches no SII), so the ledger's own allocation record, keyed by the account's ledger and the
// key, is what makes the retry safe.
import type { Context } from "hono";
import { parseRut } from "../../lib/rut.ts";
import type { AppEnv } from "../../platform/context.ts";
import { ApiError } from "../../platform/errors.ts";
import { idempotencyKey } from "../../platform/idempotency.ts";
import type { FolioClaim, FolioRangeState } from "../../ports.ts";
import { ledgerToday, openCaf, readLedger } from "../../services/folio-ledger.ts";
import { callerOf } from "../../services/sii-context.ts";

/** What one type's ledger gave this request. */
export interface LedgerUse {
  tipo: number;
  /** The folios of the ledger this request's documents carry, lowest first. */
  folios: number[];
  /** Free folios left after the call (ranges not expired). */
  disponibles: number;
  /** `disponibles` is at or below the threshold the account set for the type (what `X-Folios-Low` says). */
  bajo_umbral: boolean;
}

/** Folios given back to the ledger, per type. */
export type Released = { dte: number; folios: number[] }[];

/** The folios taken: the CAF files they need, and what to give back should the request fail. */
export interface LedgerTake {
  emisor: string;
  cafs: string[];
  uses: LedgerUse[];
  /** Folios this call took (not a retry's replay), per type: the ones a failure gives back. */
  taken: Map<number, number[]>;
}

type Doc = Record<string, unknown>;
const part = (node: unknown, name: string): Doc => {
  const value = (node as Doc | undefined)?.[name];
  return typeof value === "object" && value !== null ? (value as Doc) : {};
};
const idDoc = (doc: Doc) => part(part(doc, "Encabezado"), "IdDoc");
const accountOf = (c: Context<AppEnv>) => callerOf(c).account();

const REASONS: Record<Extract<FolioClaim, { state: "unavailable" }>["reason"], string> = {
  outside: "is in no range this account's ledger holds",
  expired: "is in a range whose CAF has expired",
  void: "was annulled",
  used: "was already used",
};

/**
 * Takes the folios of `documents` (given a `Folio` where they lack one) from the caller's ledger.
 * Null when the request uses no ledger: it sends its CAFs and the account holds no ledger of its types.
 */
export async function takeLedgerFolios(c: Context<AppEnv>, documents: Doc[], withCaf: boolean): Promise<LedgerTake | null> {
  const store = c.get("deps").folios;
  const account = accountOf(c);
  const key = idempotencyKey(c);
  const today = ledgerToday(c.get("deps"));
  const first = parseRut(String(part(part(documents[0], "Encabezado"), "Emisor").RUTEmisor ?? ""));
  // No readable issuer: generation names the field; an envelope holds one issuer's documents.
  if (!first.ok) return null;
  const emisor = first.rut;
  const byType = new Map<number, Doc[]>();
  for (const doc of documents) {
    const tipo = Number(idDoc(doc).TipoDTE);
    if (Number.isInteger(tipo)) byType.set(tipo, [...(byType.get(tipo) ?? []), doc]);
  }
  const take: LedgerTake = { emisor, cafs: [], uses: [], taken: new Map() };
  try {
    for (const [tipo, docs] of byType) {
      const ranges = await store.ranges(account, emisor, tipo);
      if (ranges.length === 0) {
        if (withCaf) continue;
        throw new ApiError(
          404,
          "HTTP_404",
          `This account holds no folios of type ${tipo} for ${emisor}: add a CAF to its ledger (POST /api/v1/platform/dte/folios/${emisor}/${tipo}) or send caf`,
          { details: { emisor, dte: tipo } },
        );
      }
      const named = docs.filter((d) => idDoc(d).Folio !== undefined);
      const free = withCaf ? [] : docs.filter((d) => idDoc(d).Folio === undefined);
      const folios: number[] = [];
      if (named.length) folios.push(...(await claimNamed(c, take, tipo, named, key && `generar|named|${key}`, today)));
      if (free.length) {
        const got = await allocateFree(c, take, tipo, free.length, key && `generar|free|${key}`, today);
        for (const [i, doc] of free.entries()) idDoc(doc).Folio = got[i];
        folios.push(...got);
      }
      if (!folios.length) continue;
      if (!withCaf) take.cafs.push(...(await cafsFor(c, emisor, tipo, ranges, folios)));
      take.uses.push({ tipo, folios: folios.sort((a, b) => a - b), disponibles: 0, bajo_umbral: false });
    }
  } catch (error) {
    await giveBack(c, take);
    throw error;
  }
  return take.uses.length ? take : null;
}

async function claimNamed(c: Context<AppEnv>, take: LedgerTake, tipo: number, docs: Doc[], key: string | undefined, today: string) {
  const wanted = docs.map((d) => Number(idDoc(d).Folio));
  // A Folio that is no folio number: generation names the field.
  if (!wanted.every((f) => Number.isInteger(f) && f > 0)) return [];
  const claim = await c.get("deps").folios.claim(accountOf(c), take.emisor, tipo, wanted, key, today);
  if (claim.state === "unavailable") {
    throw new ApiError(
      409,
      "FOLIO_UNAVAILABLE",
      `Folio ${claim.folio} of type ${tipo} for ${take.emisor} ${REASONS[claim.reason]}: name a free folio of the ledger, or leave Folio out to get the next one`,
      { details: { emisor: take.emisor, dte: tipo, folio: claim.folio, motivo: claim.reason } },
    );
  }
  if (claim.replayed)
    sameRetry(
      claim.folios,
      [...wanted].sort((a, b) => a - b),
    );
  else take.taken.set(tipo, [...(take.taken.get(tipo) ?? []), ...claim.folios]);
  return claim.folios;
}

async function allocateFree(c: Context<AppEnv>, take: LedgerTake, tipo: number, count: number, key: string | undefined, today: string) {
  const allocation = await c.get("deps").folios.allocate(accountOf(c), take.emisor, tipo, count, key, today);
  if (allocation.state === "exhausted") {
    throw new ApiError(
      409,
      "FOLIOS_EXHAUSTED",
      `No folios left for ${take.emisor}, type ${tipo}: ${count} needed, ${allocation.disponibles} free in ranges not expired; add a CAF (caf/solicitar with ledger: true, or POST /api/v1/platform/dte/folios/${take.emisor}/${tipo})`,
      { details: { emisor: take.emisor, dte: tipo, solicitados: count, disponibles: allocation.disponibles } },
    );
  }
  if (allocation.replayed) {
    if (allocation.folios.length !== count) sameRetry(allocation.folios, []);
  } else take.taken.set(tipo, [...(take.taken.get(tipo) ?? []), ...allocation.folios]);
  return allocation.folios;
}

/** A retry with the same key must ask for what the first call got. */
function sameRetry(got: number[], wanted: number[]): void {
  if (wanted.length && got.join() === wanted.join()) return;
  throw new ApiError(
    409,
    "IDEMPOTENCY_CONFLICT",
    `This Idempotency-Key already took folios ${got.join(", ")}; a retry must send the same documents (or use a new key)`,
  );
}

/** The opened CAF file of each held range some of `folios` are in. */
async function cafsFor(c: Context<AppEnv>, emisor: string, tipo: number, ranges: FolioRangeState[], folios: number[]) {
  const used = ranges.filter((r) => folios.some((f) => r.desde <= f && f <= r.hasta));
  const boxes = await Promise.all(used.map((r) => c.get("deps").folios.cafOf(accountOf(c), emisor, tipo, r.desde)));
  return Promise.all(boxes.filter((box): box is string => box !== null).map((box) => openCaf(c.get("deps"), box)));
}

/** Gives the folios this call took back to the ledger; answers them per type (what was released). */
export async function giveBack(c: Context<AppEnv>, take: LedgerTake): Promise<Released> {
  const released: Released = [];
  for (const [tipo, folios] of take.taken) {
    if (!folios.length) continue;
    await c.get("deps").folios.release(accountOf(c), take.emisor, tipo, folios);
    released.push({ dte: tipo, folios: [...folios].sort((a, b) => a - b) });
  }
  take.taken.clear();
  return released;
}

/**
 * Counts what each type has left after the call, with its low flag, for the answer's `folios_ledger`;
 * sets `X-Folios-Remaining` (the fewest) and `X-Folios-Low: true` when a type used is at or below
 * the threshold the account set for it.
 */
export async function remaining(c: Context<AppEnv>, take: LedgerTake): Promise<void> {
  for (const use of take.uses) {
    const { view } = await readLedger(c.get("deps"), accountOf(c), take.emisor, use.tipo);
    use.disponibles = view.disponibles;
    use.bajo_umbral = view.bajo_umbral;
  }
  c.header("X-Folios-Remaining", String(Math.min(...take.uses.map((u) => u.disponibles))));
  if (take.uses.some((u) => u.bajo_umbral)) c.header("X-Folios-Low", "true");
}
