// The keys the inbox's kill -9 property writes (test/node/inbox-kill.test.ts and its runner): a few folios in
// each of two inboxes of one account.
import type { InboxKey } from "../../src/ports/inbox.ts";

export const INBOX_KILL_ACCOUNT = "acct_inbox_kill";
export const INBOX_KILL_RECEPTORS = ["76192083-9", "77777777-7"];
export const INBOX_KILL_KEYS: InboxKey[] = Array.from({ length: 12 }, (_, i) => ({
  receptor: INBOX_KILL_RECEPTORS[i % 2]!,
  emisor: "96790240-3",
  dte: 33,
  folio: 1 + Math.floor(i / 2),
}));
/** Lanes each runner writes in at once: a killed runner leaves at most this many increments unacknowledged. */
export const INBOX_KILL_LANES = 3;
