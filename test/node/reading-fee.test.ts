// Reading a large body is work whatever the answer: a body over 1 MiB that is refused (4xx) pays
// one unit per started 512 KiB beyond the first MiB, said in `details.unidades_cobradas`, and the fee is
// taken before a byte is read, so an account without the units (or a token without the scope, or
// a `dry_run` the operation has no preview for) is refused without the body being read at all.
// Whether it was read is counted on the body's stream (pulled only when read).
import { describe, expect, it } from "vitest";
import { bytesToBase64 } from "../../src/lib/encoding.ts";
import { readingFee, SLICED_JSON_BODY } from "../../src/platform/json-body.ts";
import type { Scope } from "../../src/ports/access.ts";
import { EXAMPLE_ENVELOPE } from "../../src/routes/example-documents.ts";
import { errorOf } from "../support/answers.ts";
import { probeApp, tokenFor } from "../support/app.ts";

const FORMATOS = "/api/v1/platform/dte/formatos/json";
const VERIFICAR = "/api/v1/platform/dte/envios/verificar";
const ENVIAR = "/api/v1/platform/dte/envios/enviar";
const SIZE = 18_000_000;

/** A JSON body of `fields` whose `xml` (base64 of `xml`, or given as base64) is padded with line breaks to `size` bytes. */
function bodyOf(base64: string, size: number, fields: Record<string, unknown> = {}): Uint8Array {
  const bare = JSON.stringify({ ...fields, xml: base64 });
  // Each line break is two bytes of JSON (`\n`); the decoder drops them.
  const padded = JSON.stringify({ ...fields, xml: base64 + "\n".repeat(Math.max(0, Math.floor((size - bare.length) / 2))) });
  return new TextEncoder().encode(padded);
}
const base64Of = (xml: string) => bytesToBase64(new TextEncoder().encode(xml));
/** An EnvioDTE of 2 001 empty DTEs: refused (400) for its count, whatever its size. */
const tooMany = base64Of(`<EnvioDTE><SetDTE>${"<DTE><Documento/></DTE>".repeat(2001)}</SetDTE></EnvioDTE>`);

async function setup(options: { plan?: { daily_units: number; monthly_units: number }; scopes?: Scope[] } = {}) {
  const t = probeApp(undefined, { maxBodyBytes: 32 * 1024 * 1024 });
  const token = await tokenFor(t.deps, options);
  /** Posts `body` as a stream that counts how often it was read; `chunked`: with no declared length. */
  const post = async (path: string, body: Uint8Array, chunked = false) => {
    const stream = { pulls: 0 };
    let at = 0;
    const source = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          stream.pulls++;
          const chunk = body.subarray(at, at + 64 * 1024);
          at += chunk.length;
          if (chunk.length) controller.enqueue(chunk);
          else controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    const res = await t.app.request(path, {
      method: "POST",
      headers: {
        "x-api-token": token.secret,
        "content-type": "application/json",
        ...(chunked ? {} : { "content-length": String(body.length) }),
      },
      body: source,
      duplex: "half",
    } as RequestInit);
    const used = (await t.deps.quota.peek(token.id, options.plan ?? { daily_units: 1000, monthly_units: 10000 }, t.deps.clock.now())).daily
      .used;
    return { res, units: res.headers.get("x-quota-units"), used, read: stream.pulls > 0 };
  };
  return { post };
}

// Several 18 MB bodies a test: a generous timeout for a busy machine (nothing here is timed).
describe("the reading fee of a large body", { timeout: 60_000 }, () => {
  it("is one unit per started 512 KiB beyond the first MiB", () => {
    expect([readingFee(SLICED_JSON_BODY), readingFee(SLICED_JSON_BODY + 1), readingFee(SIZE), readingFee(32 * SLICED_JSON_BODY)]).toEqual([
      0, 1, 33, 62,
    ]);
  });

  it("is charged for an 18 MB upload refused with 400, and said in details.unidades_cobradas", async () => {
    const { post } = await setup();
    for (const path of [FORMATOS, VERIFICAR]) {
      const { res, units, used } = await post(path, bodyOf(tooMany, SIZE));
      const error = await errorOf(res);
      expect([path, res.status, error.error_code, units, error.details]).toEqual([
        path,
        400,
        "VALIDATION_ERROR",
        "33",
        { unidades_cobradas: 33 },
      ]);
      expect(error.message).toMatch(/holds 2001 documents/);
      expect(used).toBe(path === FORMATOS ? 33 : 66);
    }
  });

  it("is charged for a large body the schema refuses (422), beside the errors it lists", async () => {
    const { post } = await setup();
    const { res, units } = await post(VERIFICAR, bodyOf(tooMany, 3 * SLICED_JSON_BODY, { auth: "none" }));
    const error = await errorOf(res);
    expect([res.status, units, error.details?.unidades_cobradas, error.errors?.[0]?.path]).toEqual([422, "4", 4, "auth"]);
  });

  it("is not charged for a small body refused, as before", async () => {
    const { post } = await setup();
    const { res, units, used } = await post(FORMATOS, bodyOf(tooMany, 0));
    const error = await errorOf(res);
    expect([res.status, units, used, error.details]).toEqual([400, "0", 0, undefined]);
  });

  it("is not charged when the upload is accepted: it costs its weight per block, as before", async () => {
    const { post } = await setup();
    const { res, units, used } = await post(FORMATOS, bodyOf(EXAMPLE_ENVELOPE, SIZE));
    expect([res.status, units, used]).toEqual([200, "1", 1]);
  });

  it("is taken before the body is read: an account without it gets 429 QUOTA_EXCEEDED, the body unread", async () => {
    for (const daily_units of [0, 32]) {
      const { post } = await setup({ plan: { daily_units, monthly_units: 100 } });
      const { res, read, used } = await post(FORMATOS, bodyOf(EXAMPLE_ENVELOPE, SIZE));
      const error = await errorOf(res);
      expect([daily_units, res.status, error.error_code, read, used]).toEqual([daily_units, 429, "QUOTA_EXCEEDED", false, 0]);
      expect(error.message).toBe(
        `Quota exceeded: reading ${SIZE} bytes of this body (one unit per started 512 KiB beyond the first MiB) needs 33 units`,
      );
      expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    }
  });

  it("is paid as a body of no declared length arrives: refused past the first MiB when unpaid, kept when refused", async () => {
    const spent = await setup({ plan: { daily_units: 0, monthly_units: 0 } });
    const unpaid = await spent.post(FORMATOS, bodyOf(EXAMPLE_ENVELOPE, SIZE), true);
    const error = await errorOf(unpaid.res);
    // Refused for the fee of what had arrived, before the body was parsed (and before its weight was asked for).
    expect([unpaid.res.status, error.error_code, unpaid.used]).toEqual([429, "QUOTA_EXCEEDED", 0]);
    expect(error.message).toMatch(
      /^Quota exceeded: reading \d+ bytes of this body \(one unit per started 512 KiB beyond the first MiB\) needs \d+ units$/,
    );
    const { post } = await setup();
    const refused = await post(FORMATOS, bodyOf(tooMany, SIZE), true);
    expect([refused.res.status, refused.units, refused.used, (await errorOf(refused.res)).details]).toEqual([
      400,
      "33",
      33,
      { unidades_cobradas: 33 },
    ]);
    const accepted = await post(FORMATOS, bodyOf(EXAMPLE_ENVELOPE, SIZE), true);
    expect([accepted.res.status, accepted.units, accepted.used]).toEqual([200, "1", 34]);
  });

  it("is never reached by a token without the scope or a dry_run the operation has none of: refused, the body unread", async () => {
    const scopeless = await setup({ scopes: ["settings:read"] });
    const refused = await scopeless.post(FORMATOS, bodyOf(EXAMPLE_ENVELOPE, SIZE));
    expect([refused.res.status, (await errorOf(refused.res)).error_code, refused.read]).toEqual([403, "INSUFFICIENT_SCOPE", false]);
    const { post } = await setup();
    const dryRun = await post(`${FORMATOS}?dry_run=1`, bodyOf(EXAMPLE_ENVELOPE, SIZE));
    expect([dryRun.res.status, dryRun.read, dryRun.units]).toEqual([400, false, "0"]);
  });

  it("is not taken for a dry run, which stays free even with the quota spent", async () => {
    const { post } = await setup({ plan: { daily_units: 0, monthly_units: 0 } });
    // Refused by the schema (no auth): a preview's refusal is free too.
    const { res, units, read } = await post(`${ENVIAR}?dry_run=1`, bodyOf(EXAMPLE_ENVELOPE, SIZE));
    const error = await errorOf(res);
    expect([res.status, units, read, error.details?.unidades_cobradas]).toEqual([422, "0", true, undefined]);
  });
});
