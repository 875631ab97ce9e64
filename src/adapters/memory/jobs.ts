// Jobs, events and result pieces in one process's memory: the tests' deps. Every method runs to its end without
// awaiting, so it is as atomic as the SQL store's transactions (the same contract: test/support/job-store-contract.ts).
import { randomName } from "../../lib/random-name.ts";
import {
  EVENT_KEPT_MS,
  type EventRecord,
  type JobQueue,
  type JobRecord,
  type JobStore,
  type JobUpdate,
  LIVE_JOB_STATES,
  type NewEvent,
} from "../../ports/jobs.ts";
import { copy } from "./copy.ts";

export function memoryJobStore(): JobStore & JobQueue {
  const jobs = new Map<string, JobRecord>();
  const events: EventRecord[] = [];
  const sequences = new Map<string, number>();
  const pieces = new Map<string, { sealed: string; expires: number }>();
  const pieceKey = (account: string, id: string, attempt: number, index: number) => JSON.stringify([account, id, attempt, index]);
  /** What the SQL store's rounds do: an expired piece goes. */
  const erase = (now: number) => {
    for (const [k, piece] of pieces) if (piece.expires <= now) pieces.delete(k);
  };
  const live = (job: JobRecord) => LIVE_JOB_STATES.includes(job.estado);

  const append = (account: string, jobId: string, news: NewEvent[], now: number): EventRecord[] => {
    const last = sequences.get(account) ?? 0;
    sequences.set(account, last + news.length);
    const written = news.map((event, i) => ({
      id: randomName("evt"),
      account,
      type: event.type,
      created_at: now,
      sequence: last + i + 1,
      data: { ...copy(event.data), job_id: jobId },
    }));
    events.push(...written);
    return copy(written);
  };

  const write = (job: JobRecord, update: JobUpdate, now: number) => {
    const { input, ...rest } = update;
    Object.assign(job, copy(rest), input === undefined ? {} : { input: copy(input) }, {
      updated_at: now,
      lease_until: 0,
      version: job.version + 1,
    });
  };

  return {
    async create(job, maxLive) {
      const mine = [...jobs.values()].filter((j) => j.account === job.account && live(j));
      const same = mine.find((j) => j.subject === job.subject);
      if (same) return { state: "existing", job: copy(same) };
      if (mine.length >= maxLive) return { state: "full", max: maxLive };
      jobs.set(job.id, copy(job));
      return { state: "created", job: copy(job) };
    },
    async get(account, id) {
      const job = jobs.get(id);
      return job && job.account === account ? copy(job) : null;
    },
    async list(account, { estado, before, exceptKind, limit }) {
      const cursor = before ? jobs.get(before) : undefined;
      if (before && cursor?.account !== account) return [];
      return [...jobs.values()]
        .filter((j) => j.account === account && (!estado || j.estado === estado) && j.kind !== exceptKind)
        .filter((j) => !cursor || j.created_at < cursor.created_at || (j.created_at === cursor.created_at && j.id < cursor.id))
        .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1))
        .slice(0, limit)
        .map(copy);
    },
    async lease(now, leaseMs, limit) {
      erase(now);
      const due = [...jobs.values()]
        .filter((j) => j.due !== null && j.due <= now && j.lease_until <= now)
        .sort((a, b) => (a.due ?? 0) - (b.due ?? 0))
        .slice(0, limit);
      for (const job of due) Object.assign(job, { lease_until: now + leaseMs, version: job.version + 1 });
      return due.map(copy);
    },
    async finish(leased, update, news, now) {
      const job = jobs.get(leased.id);
      if (!job || job.version !== leased.version) return null;
      write(job, update, now);
      return append(job.account, job.id, news, now);
    },
    async change(account, id, from, update, news, now) {
      const job = jobs.get(id);
      if (!job || job.account !== account) return { state: "not_found" };
      if (!from.includes(job.estado)) return { state: "refused", job: copy(job) };
      write(job, update, now);
      return { state: "changed", job: copy(job), events: append(account, id, news, now) };
    },
    async events(account, { after, type, limit }, now) {
      return events
        .filter((e) => e.account === account && e.sequence > after && (!type || e.type === type) && e.created_at >= now - EVENT_KEPT_MS)
        .slice(0, limit)
        .map(copy);
    },
    async event(account, id, now) {
      const event = events.find((e) => e.id === id && e.account === account && e.created_at >= now - EVENT_KEPT_MS);
      return event ? copy(event) : null;
    },
    async live(account, prefix) {
      return [...jobs.values()].filter((j) => j.account === account && live(j) && j.subject.startsWith(prefix)).map(copy);
    },
    async wake(account, prefix, now) {
      const woken = [...jobs.values()].filter(
        (j) =>
          j.account === account &&
          j.estado === "pendiente" &&
          j.subject.startsWith(prefix) &&
          j.lease_until <= now &&
          j.due !== null &&
          j.due > now,
      );
      for (const job of woken) Object.assign(job, { due: now, updated_at: now, version: job.version + 1 });
      return woken.length;
    },
    async putResultPiece(account, id, attempt, index, sealed, expires) {
      pieces.set(pieceKey(account, id, attempt, index), { sealed, expires });
    },
    async resultPiece(account, id, attempt, index, now) {
      const k = pieceKey(account, id, attempt, index);
      const piece = pieces.get(k);
      if (!piece) return null;
      if (piece.expires > now) return piece.sealed;
      pieces.delete(k);
      return null;
    },
    async nextDue() {
      const times = [...jobs.values()].filter((j) => j.due !== null).map((j) => Math.max(j.due ?? 0, j.lease_until));
      // Like the SQL store: the rounds erase expired pieces, so the next look is no later than the first expiry.
      for (const piece of pieces.values()) times.push(piece.expires);
      return times.length ? Math.min(...times) : null;
    },
  };
}
