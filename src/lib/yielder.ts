// Long work on the thread that serves every request of the process or isolate (a 2 000-document
// envelope's parse, decoding, signature digests) is done in slices: between them a macrotask lets
// other requests run. A microtask (`await`) would not let the event loop turn.

/**
 * One macrotask: setImmediate where the runtime has it (Node, Lambda; Workers with nodejs_compat),
 * else setTimeout. Node makes setTimeout(0) wait at least 1 ms, an idle millisecond per slice even
 * when nothing else waits: thousands of slices, a third of a 2 000-document generar or verificar.
 * setImmediate runs once the loop has served the I/O and timers that are due.
 */
const macrotask: (resolve: () => void) => void =
  typeof globalThis.setImmediate === "function" ? (resolve) => globalThis.setImmediate(resolve) : (resolve) => setTimeout(resolve, 0);

/** Resolves after one macrotask: the event loop serves what waits meanwhile. */
export const nextTurn = (): Promise<void> => new Promise<void>(macrotask);

/** A pause to await between units of work: it yields only when a slice is used up. */
export type Pause = () => Promise<void>;

/**
 * A pause that yields once `ms` of work have passed or every `count` calls (Workers' clock stands
 * still while code runs, so the count bounds a slice there). A request served meanwhile needs
 * several turns of the loop (read, authenticate, charge, answer), each waiting out one slice, so a
 * batch at the SII's maxima takes short slices.
 */
export function yielder(ms = 20, count = 10): Pause {
  let since = Date.now();
  let done = 0;
  return async () => {
    if (++done < count && Date.now() - since < ms) return;
    await nextTurn();
    since = Date.now();
    done = 0;
  };
}

/** The yielder of a batch that may reach the SII's maxima: slices of at most 5 ms or 4 documents. */
export const batchYielder = (): Pause => yielder(5, 4);
