// The folios `documentos/generar` signs, from the account's folio ledger: a document without `Folio` in a
// request without `caf` gets the next free folio of its issuer and type (the store's atomic allocate), a
// document naming its `Folio` takes that one (free, else 409) when the account holds a ledger of its type,
// and the CAFs the folios need come from the ledger.
//
// The invariant: a folio that appeared in an answer is never handed out again. Every folio taken is held by
// this attempt (FolioHold in src/ports/stores.ts) until the attempt settles it, just before its answer is produced,
// or gives it back, when no answer holding it was or can be produced. A retry under the same Idempotency-Key
// and request runs only when no answer was stored for it (src/platform/idempotency.ts) and takes the held
// folios over; a hold nobody comes back for turns void (`sin_respuesta`). So a refused attempt can only give
// back what it still holds, never what a retry signed.
import { parseRut } from "../lib/rut.ts";
import { ApiError } from "../platform/errors.ts";
import type { Deps } from "../ports/deps.ts";
import type { FolioHold, FolioRangeState } from "../ports/stores.ts";
import { ledgerToday, openCaf, readLedger } from "./folio-ledger.ts";

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

/** Who is taking folios: the account, and the attempt's hold (its id, fingerprint, owner and lease). */
export interface Taker {
  deps: Deps;
  account: string;
  hold: FolioHold;
}

/** The folios taken: the CAF files they need, and the holds to settle or give back. */
export interface LedgerTake {
  emisor: string;
  cafs: string[];
  uses: LedgerUse[];
  /** Every hold this attempt has in a ledger: its type and the hold. */
  holds: { tipo: number; hold: FolioHold }[];
}

/** The hold of an attempt at a request: named by its Idempotency-Key when it has one, else by the attempt itself. */
export function holdFor(deps: Deps, idempotent: { key: string; print: string; leaseMs: number } | undefined, leaseMs: number): FolioHold {
  const owner = crypto.randomUUID();
  const now = deps.clock.now().getTime();
  return idempotent
    ? { id: `key:${idempotent.key}`, print: idempotent.print, owner, keyed: true, now, leaseMs: idempotent.leaseMs }
    : { id: `attempt:${owner}`, print: "", owner, keyed: false, now, leaseMs };
}

type Doc = Record<string, unknown>;
const part = (node: unknown, name: string): Doc => {
  const value = (node as Doc | undefined)?.[name];
  return typeof value === "object" && value !== null ? (value as Doc) : {};
};
const idDoc = (doc: Doc) => part(part(doc, "Encabezado"), "IdDoc");

const REASONS: Record<"outside" | "expired" | "void" | "used", string> = {
  outside: "is in no range this account's ledger holds",
  expired: "is in a range whose CAF has expired",
  void: "was annulled",
  used: "was already used",
};

/**
 * Takes the folios of `documents` (given a `Folio` where they lack one) from the taker's ledger, held by its
 * hold. Null when the request uses no ledger: it sends its CAFs and the account holds no ledger of its types.
 */
export async function takeLedgerFolios(taker: Taker, documents: Doc[], withCaf: boolean): Promise<LedgerTake | null> {
  const { deps, account } = taker;
  const today = ledgerToday(deps);
  const first = parseRut(String(part(part(documents[0], "Encabezado"), "Emisor").RUTEmisor ?? ""));
  // No readable issuer: generation names the field; an envelope holds one issuer's documents.
  if (!first.ok) return null;
  const emisor = first.rut;
  const byType = new Map<number, Doc[]>();
  for (const doc of documents) {
    const tipo = Number(idDoc(doc).TipoDTE);
    if (Number.isInteger(tipo)) byType.set(tipo, [...(byType.get(tipo) ?? []), doc]);
  }
  const take: LedgerTake = { emisor, cafs: [], uses: [], holds: [] };
  try {
    for (const [tipo, docs] of byType) {
      const ranges = await deps.folios.ranges(account, emisor, tipo);
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
      if (named.length) folios.push(...(await claimNamed(taker, take, tipo, named, today)));
      if (free.length) {
        const got = await allocateFree(taker, take, tipo, free.length, today);
        for (const [i, doc] of free.entries()) idDoc(doc).Folio = got[i];
        folios.push(...got);
      }
      if (!folios.length) continue;
      if (!withCaf) take.cafs.push(...(await cafsFor(taker, emisor, tipo, ranges, folios)));
      take.uses.push({ tipo, folios: folios.sort((a, b) => a - b), disponibles: 0, bajo_umbral: false });
    }
  } catch (error) {
    await giveBack(taker, take);
    throw error;
  }
  return take.uses.length ? take : null;
}

/** The named and the free folios of a type are two allocations of the request, so each has a hold of its own. */
const holdOf = (taker: Taker, take: LedgerTake, tipo: number, which: "named" | "free"): FolioHold => {
  const hold = { ...taker.hold, id: `${taker.hold.id}|${which}` };
  take.holds.push({ tipo, hold });
  return hold;
};

async function claimNamed(taker: Taker, take: LedgerTake, tipo: number, docs: Doc[], today: string) {
  const wanted = docs.map((d) => Number(idDoc(d).Folio));
  // A Folio that is no folio number: generation names the field.
  if (!wanted.every((f) => Number.isInteger(f) && f > 0)) return [];
  const claim = await taker.deps.folios.claim(taker.account, take.emisor, tipo, wanted, holdOf(taker, take, tipo, "named"), today);
  if (claim.state === "unavailable") {
    throw new ApiError(
      409,
      "FOLIO_UNAVAILABLE",
      `Folio ${claim.folio} of type ${tipo} for ${take.emisor} ${REASONS[claim.reason]}: name a free folio of the ledger, or leave Folio out to get the next one`,
      { details: { emisor: take.emisor, dte: tipo, folio: claim.folio, motivo: claim.reason } },
    );
  }
  if (claim.state !== "claimed") throw heldElsewhere(claim, taker.hold.now);
  return claim.folios;
}

async function allocateFree(taker: Taker, take: LedgerTake, tipo: number, count: number, today: string) {
  const allocation = await taker.deps.folios.allocate(taker.account, take.emisor, tipo, count, holdOf(taker, take, tipo, "free"), today);
  if (allocation.state === "exhausted") {
    throw new ApiError(
      409,
      "FOLIOS_EXHAUSTED",
      `No folios left for ${take.emisor}, type ${tipo}: ${count} needed, ${allocation.disponibles} free in ranges not expired; add a CAF (caf/solicitar with ledger: true, or POST /api/v1/platform/dte/folios/${take.emisor}/${tipo})`,
      { details: { emisor: take.emisor, dte: tipo, solicitados: count, disponibles: allocation.disponibles } },
    );
  }
  if (allocation.state !== "allocated") throw heldElsewhere(allocation, taker.hold.now);
  return allocation.folios;
}

/** The key's folios belong to another request, or another attempt at this one still holds them. */
function heldElsewhere(outcome: { state: "busy"; until: number } | { state: "conflict" }, now: number): ApiError {
  if (outcome.state === "conflict")
    return new ApiError(409, "IDEMPOTENCY_CONFLICT", "This Idempotency-Key already took folios for a different request; use a new key");
  const seconds = Math.max(1, Math.ceil((outcome.until - now) / 1000));
  return new ApiError(409, "IDEMPOTENCY_IN_PROGRESS", "Another attempt with this Idempotency-Key holds its folios; retry later", {
    headers: { "Retry-After": String(seconds) },
  });
}

/** The opened CAF file of each held range some of `folios` are in. */
async function cafsFor({ deps, account }: Taker, emisor: string, tipo: number, ranges: FolioRangeState[], folios: number[]) {
  const used = ranges.filter((r) => folios.some((f) => r.desde <= f && f <= r.hasta));
  const boxes = await Promise.all(used.map((r) => deps.folios.cafOf(account, emisor, tipo, r.desde)));
  return Promise.all(boxes.filter((box): box is string => box !== null).map((box) => openCaf(deps, box)));
}

/**
 * The answer holding the folios is about to be produced: each hold turns answered, so nothing gives them back.
 * A hold this attempt lost (its lease ran out and a retry took it over, or it was voided) means another answer
 * may hold the folios: this one is refused instead (500, nothing answered signed, nothing given back).
 */
export async function settleTake({ deps, account }: Taker, take: LedgerTake): Promise<void> {
  for (const { tipo, hold } of take.holds) {
    if (await deps.folios.settle(account, take.emisor, tipo, hold)) continue;
    throw new ApiError(
      500,
      "INTERNAL_ERROR",
      `Signing took longer than the folios' hold (${Math.round(hold.leaseMs / 1000)} s): they went to a retry of this request or were recorded void; nothing was answered signed: send the request again`,
      { details: { emisor: take.emisor, dte: tipo } },
    );
  }
}

/** Gives back what this attempt still holds (nothing a settled answer or a retry holds); answers it per type. */
export async function giveBack({ deps, account }: Taker, take: LedgerTake): Promise<Released> {
  const freed = new Map<number, number[]>();
  for (const { tipo, hold } of take.holds) {
    const folios = await deps.folios.release(account, take.emisor, tipo, hold);
    if (folios.length) freed.set(tipo, [...(freed.get(tipo) ?? []), ...folios]);
  }
  take.holds = [];
  return [...freed].map(([dte, folios]) => ({ dte, folios: folios.sort((a, b) => a - b) }));
}

/** What each type has left after the call, with its low flag, for the answer's `folios_ledger`. */
export async function remaining({ deps, account }: Taker, take: LedgerTake): Promise<void> {
  for (const use of take.uses) {
    const { view } = await readLedger(deps, account, take.emisor, use.tipo);
    use.disponibles = view.disponibles;
    use.bajo_umbral = view.bajo_umbral;
  }
}
