// The reference Worker of bench/workerd.ts, run by its own `wrangler dev` (config written into a
// temporary directory): what inside workerd is not the gateway's own work on a credentialed read.
//   POST /floor          the body read, nothing else: workerd's and wrangler dev's cost per request
//                        alone (the same body as the routes below, so its forwarding is in the floor)
//   POST /sandbox/:anio  the simulator alone: the requests the gateway's client sends for one BTE
//                        summary (recorded once from that client), each served by the in-process
//                        sandbox, the answers left unread (reading them is the gateway's work on the
//                        real SII too). In production the SII is remote and this is not billed.
//   POST /relay/:anio    the bare relay (as bench/server.ts's): the same client calls in a cached
//                        session (memory store), no auth, validation, quota, envelope or log line.
//   POST /quota          the body read and one quota charge as the gateway makes it (its Durable
//                        Object, its store).
import type { QuotaCounter } from "../src/adapters/cloudflare/durable-objects.ts";
import { durableQuotaStore } from "../src/adapters/cloudflare/durable-quota.ts";
import { memorySessionStore } from "../src/adapters/memory/sessions.ts";
import type { SiiTransport } from "../src/ports/transport.ts";
import { sandboxTransport } from "../src/sandbox/transport.ts";
import { annualBte } from "../src/sii/bte.ts";
import type { SiiContext } from "../src/sii/http.ts";
import { type ClaveCredential, claveLogin } from "../src/sii/login.ts";
import { type SessionEnv, withWebSession } from "../src/sii/sessions.ts";

interface Recorded {
  url: string;
  method: string;
  headers: [string, string][];
  body: ArrayBuffer | null;
}

interface Reference {
  ctx: SiiContext;
  env: SessionEnv;
  /** Per year: the requests of one summary in a session, to replay to the simulator. */
  recorded: Map<number, Promise<Recorded[]>>;
}

let reference: Reference | undefined;

// Built on the first request: workerd allows no random values (the sandbox's keys) at start-up.
function referenceOf(): Reference {
  if (!reference) {
    const ctx: SiiContext = { transport: sandboxTransport(), timeoutMs: 30_000 };
    const env: SessionEnv = {
      ctx,
      sessions: memorySessionStore(),
      secretKey: "bench-secret-key-with-32-characters!",
      now: () => new Date(),
      pacingMs: 0,
      waitMs: 5_000,
    };
    reference = { ctx, env, recorded: new Map() };
  }
  return reference;
}

function passOf(body: string): ClaveCredential {
  const { auth } = JSON.parse(body) as { auth: { pass: ClaveCredential } };
  return auth.pass;
}

async function record(ref: Reference, pass: ClaveCredential, anio: number): Promise<Recorded[]> {
  const jar = await claveLogin(ref.ctx, pass);
  const calls: Recorded[] = [];
  const inner = ref.ctx.transport;
  const recording: SiiTransport = {
    ...inner,
    async fetch(request, options) {
      const body = request.method === "GET" ? null : await request.clone().arrayBuffer();
      calls.push({ url: request.url, method: request.method, headers: [...request.headers], body });
      return inner.fetch(request, options);
    },
  };
  await annualBte({ ...ref.ctx, transport: recording }, jar, anio);
  return calls;
}

async function simulatorOnly(ref: Reference, request: Request, anio: number): Promise<Response> {
  // Read as the floor reads it; parsed only the first time, for the recording's login.
  const body = await request.text();
  let calls = ref.recorded.get(anio);
  if (!calls) {
    calls = record(ref, passOf(body), anio);
    ref.recorded.set(anio, calls);
  }
  let statuses = "";
  for (const call of await calls) {
    const answer = await ref.ctx.transport.fetch(new Request(call.url, { method: call.method, headers: call.headers, body: call.body }));
    statuses += `${answer.status} `;
  }
  return new Response(statuses);
}

async function relay(ref: Reference, pass: ClaveCredential, anio: number): Promise<Response> {
  const owner = { account: "bench", rut: pass.rut, ambiente: "0" as const, kind: "clave" as const, proof: pass.clave };
  const summary = await withWebSession(
    ref.env,
    owner,
    () => claveLogin(ref.ctx, pass),
    (jar) => annualBte(ref.ctx, jar, anio),
  );
  return Response.json({ mensual: summary.mensual, anual: summary.anual });
}

export { QuotaCounter } from "../src/adapters/cloudflare/durable-objects.ts";

const PLAN = { daily_units: 1e9, monthly_units: 1e10 };

export default {
  async fetch(request: Request, env: { QUOTA: DurableObjectNamespace<QuotaCounter> }): Promise<Response> {
    const [, route, year] = new URL(request.url).pathname.split("/");
    if (route === "floor") {
      await request.arrayBuffer();
      return new Response("ok");
    }
    if (route === "quota") {
      await request.arrayBuffer();
      const decision = await durableQuotaStore(env.QUOTA).consume("bench", 1, PLAN, new Date());
      return new Response(String(decision.allowed));
    }
    if (request.method !== "POST" || (route !== "sandbox" && route !== "relay")) return new Response("not found", { status: 404 });
    const ref = referenceOf();
    return route === "sandbox" ? simulatorOnly(ref, request, Number(year)) : relay(ref, passOf(await request.text()), Number(year));
  },
};
