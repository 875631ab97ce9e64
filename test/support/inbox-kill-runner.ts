// A writer process for the inbox's kill -9 property (test/node/inbox-kill.test.ts): on the SQLite file it is
// given, a few lanes at once each pick a key of two inboxes and add an increment of their own to its record's
// facts by read-modify-write, again on a conflict, pausing between the read and the write so the other lanes
// and the other process come in between. Once a write is answered it prints `ack <key> <increment> <seq>`
// (with `first` when that write filed the record): what it printed is what it acknowledged. The parent kills
// it with SIGKILL at any moment.
import { openDatabase } from "../../src/adapters/node/sqlite-database.ts";
import { sqliteInboxStore } from "../../src/adapters/node/sqlite-inbox.ts";
import { INBOX_KILL_ACCOUNT, INBOX_KILL_KEYS, INBOX_KILL_LANES } from "./inbox-kill-keys.ts";

const [path = ""] = process.argv.slice(2);
const store = sqliteInboxStore(openDatabase(path));
const me = crypto.randomUUID().slice(0, 8);
let made = 0;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function lane(): Promise<never> {
  for (;;) {
    const k = Math.floor(Math.random() * INBOX_KILL_KEYS.length);
    const key = INBOX_KILL_KEYS[k]!;
    const id = `${me}-${++made}`;
    for (;;) {
      const now = Date.now();
      const doc = await store.get(INBOX_KILL_ACCOUNT, key, now);
      await sleep(Math.random() * 3);
      const ids = doc ? (doc.facts.ids as string[]) : [];
      const write = { facts: { ids: [...ids, id] }, xml: `<DTE n="${ids.length + 1}"/>`, expires: now + 3600_000 };
      const put = await store.put(INBOX_KILL_ACCOUNT, key, write, doc ? doc.version : null, now);
      if (put.state === "written") {
        process.stdout.write(`ack ${k} ${id} ${put.document.seq}${doc ? "" : " first"}\n`);
        break;
      }
    }
  }
}

process.stdout.write("runner ready\n");
await Promise.all(Array.from({ length: INBOX_KILL_LANES }, lane));
