// The live Node server against the sandbox with two accounts: A sends the heavy or hostile
// request, B's cheap calls show whether A held the event loop. The body limit is raised as an
// operator taking 2 000-document envelopes (about 13 MB of base64) would raise it.
import { mkdtempSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createNodeServer } from "../../src/entry/node-server.ts";
import { tokenFor } from "./app.ts";

export interface TwoTenants {
  base: string;
  started: Awaited<ReturnType<typeof createNodeServer>>;
  /** Account A (`sii:read`, `sii:write`) and account B (`sii:read`), each with a large plan. */
  secretA: string;
  secretB: string;
}

export async function startTwoTenants(prefix: string): Promise<TwoTenants> {
  const started = await createNodeServer({
    env: { SII_UPSTREAM: "sandbox", MAX_BODY_BYTES: String(24 * 1024 * 1024) },
    database: join(mkdtempSync(join(tmpdir(), prefix)), "state.sqlite"),
    publicDir: "public",
    log: { log: () => {} },
  });
  await new Promise<void>((resolve) => started.server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(started.server.address() as AddressInfo).port}`;
  const plan = { daily_units: 100_000, monthly_units: 1_000_000 };
  const secretA = (await tokenFor(started.deps, { account: "tenant-a", plan, scopes: ["sii:read", "sii:write"] })).secret;
  const secretB = (await tokenFor(started.deps, { account: "tenant-b", plan })).secret;
  return { base, started, secretA, secretB };
}
