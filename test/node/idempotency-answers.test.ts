// What `withIdempotency` keeps of an answer and gives back: a generar-sized answer (tens of MB
// of JSON) is compressed before it is sealed, and a retry with the same key gets it back byte for
// byte, headers included; records kept in the earlier forms (sealed uncompressed, or plain) still
// replay.
import { randomBytes } from "node:crypto";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { memoryIdempotencyStore } from "../../src/adapters/memory/idempotency.ts";
import { sqliteStores } from "../../src/adapters/node/sqlite-stores.ts";
import { bytesToBase64 } from "../../src/lib/encoding.ts";
import { seal } from "../../src/lib/secret-box.ts";
import type { AppEnv } from "../../src/platform/context.ts";
import { withIdempotency } from "../../src/platform/idempotency.ts";
import type { Deps } from "../../src/ports/deps.ts";
import type { IdempotencyStore, StoredResponse } from "../../src/ports/stores.ts";

const SECRET = "a-test-secret-key-of-at-least-32-characters";
const ACCOUNT = "acct-answers";

/** One route under `withIdempotency` answering `answer()`; `runs` counts the attempts that ran. */
function app(idempotency: IdempotencyStore, answer: () => Response) {
  const deps = { idempotency, clock: { now: () => new Date() }, config: { secretKey: SECRET } } as unknown as Deps;
  const counter = { runs: 0 };
  const hono = new Hono<AppEnv>();
  hono.use(async (c, next) => {
    c.set("deps", deps);
    c.set("principal", { tokenId: "t", account: ACCOUNT, scopes: [], plan: { daily_units: 1, monthly_units: 1 } });
    await next();
  });
  hono.post("/generar", (c) =>
    withIdempotency(
      c,
      async () => {
        counter.runs++;
        return answer();
      },
      { worthKeeping: () => true, siiCalls: () => 0 },
    ),
  );
  const post = (key: string) => hono.request("/generar", { method: "POST", headers: { "idempotency-key": key }, body: "{}" });
  return { post, counter };
}

/** A store that remembers the last answer handed to `complete`, to look at what is kept. */
function spied(store: IdempotencyStore): { store: IdempotencyStore; kept: () => StoredResponse | undefined } {
  let kept: StoredResponse | undefined;
  return {
    store: {
      ...store,
      begin: store.begin.bind(store),
      abandon: store.abandon.bind(store),
      stored: store.stored.bind(store),
      complete(account, key, fingerprint, attempt, response, now, ttlMs) {
        kept = response;
        return store.complete(account, key, fingerprint, attempt, response, now, ttlMs);
      },
    },
    kept: () => kept,
  };
}

/**
 * About 20 MB of JSON shaped like a generar answer for 2 000 invoices: each signed DTE in base64,
 * with the certificate and the fixed parts every document repeats, and the values that differ
 * (folio, amounts, digest and signature: random, as a real signature is).
 */
function generarSized(): Uint8Array {
  const random = (n: number) => bytesToBase64(randomBytes(n));
  const certificate = random(1800);
  // The XML is ASCII: its UTF-8 bytes are its ISO-8859-1 bytes.
  const latin1 = (text: string) => bytesToBase64(new TextEncoder().encode(text));
  const documentos = Array.from({ length: 2000 }, (_, i) => {
    const folio = 1000 + i;
    const xml = `<?xml version="1.0" encoding="ISO-8859-1"?><DTE version="1.0"><Documento ID="F${folio}T33"><Encabezado><IdDoc><TipoDTE>33</TipoDTE><Folio>${folio}</Folio><FchEmis>2026-03-15</FchEmis></IdDoc><Emisor><RUTEmisor>76086428-5</RUTEmisor><RznSoc>EMPRESA DE PRUEBA LIMITADA</RznSoc><GiroEmis>SERVICIOS INFORMATICOS</GiroEmis></Emisor><Receptor><RUTRecep>${10_000_000 + i * 7}-${i % 10}</RUTRecep><RznSocRecep>CLIENTE ${i}</RznSocRecep></Receptor><Totales><MntNeto>${1000 * i + 37}</MntNeto><IVA>${190 * i}</IVA><MntTotal>${1190 * i + 37}</MntTotal></Totales></Encabezado><Detalle><NroLinDet>1</NroLinDet><NmbItem>Servicio ${i % 17}</NmbItem><MontoItem>${1000 * i + 37}</MontoItem></Detalle><TED version="1.0"><DD><RE>76086428-5</RE><TD>33</TD><F>${folio}</F><TSTED>2026-03-15T10:00:00</TSTED></DD><FRMT algoritmo="SHA1withRSA">${random(64)}</FRMT></TED></Documento><Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo><Reference URI="#F${folio}T33"><DigestValue>${random(20)}</DigestValue></Reference></SignedInfo><SignatureValue>${random(256)}</SignatureValue><KeyInfo><X509Data><X509Certificate>${certificate}</X509Certificate></X509Data></KeyInfo></Signature></DTE>`;
    return { tipo: 33, folio, dte_xml: latin1(xml) };
  });
  const envio = latin1(documentos.map((d) => atob(d.dte_xml)).join(""));
  return new TextEncoder().encode(JSON.stringify({ data: { sobre: "EnvioDTE", documentos, envio_xml: envio } }));
}

const headers = { "content-type": "application/json", "content-disposition": 'attachment; filename="generar.json"' };

for (const [name, make] of [
  ["memory", () => memoryIdempotencyStore()],
  ["SQLite", () => sqliteStores(":memory:").idempotency],
] as const) {
  describe(`stored answers on the ${name} store`, () => {
    it("replays a generar-sized answer byte for byte, and keeps it compressed", async () => {
      const body = generarSized();
      expect(body.length).toBeGreaterThan(20_000_000);
      const spy = spied(make());
      const { post, counter } = app(spy.store, () => new Response(body, { status: 201, headers }));
      const same = (bytes: ArrayBuffer) => Buffer.from(bytes).equals(Buffer.from(body));
      const first = await post("k-big");
      expect(same(await first.arrayBuffer())).toBe(true);
      const again = await post("k-big");
      expect(again.status).toBe(201);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(again.headers.get("content-type")).toBe(headers["content-type"]);
      expect(again.headers.get("content-disposition")).toBe(headers["content-disposition"]);
      expect(same(await again.arrayBuffer())).toBe(true);
      expect(counter.runs).toBe(1);
      // Sealed uncompressed, the body's base64 would be sealed and base64'd again: 16/9 of it.
      const kept = spy.kept()?.body ?? "";
      expect(kept.startsWith("v1.")).toBe(true);
      expect(kept.length).toBeLessThan(body.length / 2);
    }, 120_000);

    it("replays an empty 204 and an answer whose body is not text", async () => {
      const bytes = new Uint8Array(randomBytes(70_000));
      const binary = app(make(), () => new Response(bytes, { headers: { "content-type": "application/pdf" } }));
      await binary.post("k-pdf");
      const again = await binary.post("k-pdf");
      expect(new Uint8Array(await again.arrayBuffer())).toEqual(bytes);
      expect(again.headers.get("content-type")).toBe("application/pdf");
      const empty = app(make(), () => new Response(null, { status: 204 }));
      await empty.post("k-204");
      const replayed = await empty.post("k-204");
      expect(replayed.status).toBe(204);
      expect(replayed.headers.get("idempotent-replayed")).toBe("true");
      expect(await replayed.text()).toBe("");
    });
  });
}

describe("answers stored in earlier forms", () => {
  const body = '{"data":{"folios":[1,2,3]}}';
  const base64 = bytesToBase64(new TextEncoder().encode(body));

  /** A store holding `response` as a completed answer for every key: what an older release kept. */
  function holding(response: StoredResponse): IdempotencyStore {
    const store = memoryIdempotencyStore();
    return {
      ...store,
      async begin() {
        return { state: "completed", response };
      },
    };
  }

  it("replays an answer sealed before answers were compressed ({ headers, body })", async () => {
    const sealed = await seal(
      SECRET,
      "idempotency-answer",
      JSON.stringify({ headers: { "content-type": "application/json" }, body: base64 }),
    );
    const { post, counter } = app(holding({ status: 200, headers: {}, body: sealed }), () => new Response("ran again"));
    const res = await post("k-old");
    expect(await res.text()).toBe(body);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(counter.runs).toBe(0);
  });

  it("replays an answer kept before answers were sealed (plain base64)", async () => {
    const plain = { status: 200, headers: { "content-type": "application/json" }, body: base64 };
    const { post, counter } = app(holding(plain), () => new Response("ran again"));
    const res = await post("k-plain");
    expect(await res.text()).toBe(body);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(counter.runs).toBe(0);
  });
});
