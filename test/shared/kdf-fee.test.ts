// The key-derivation fee (src/certificates/kdf-limit.ts): iterations beyond what the usual files
// derive are paid in quota units, before the derivation that needs them runs; a fee that cannot
// be paid stops the read with the payer's own error.
import { beforeEach, describe, expect, it } from "vitest";
import { clearCredentialCache, parseCertificateCredential } from "../../src/certificates/credentials.ts";
import {
  FREE_KDF_ITERATIONS,
  isKdfRefusal,
  isUnpaidKdfFee,
  KDF_ITERATIONS_PER_UNIT,
  kdfBudget,
  kdfFeeUnits,
  MAX_KDF_ITERATIONS,
} from "../../src/certificates/kdf-limit.ts";
import { readPfx } from "../../src/certificates/pkcs12.ts";
import { SANDBOX_TAXPAYER_CERTS } from "../../src/sandbox/credentials/index.ts";
import { LEGACY_PFX_AT_LIMIT } from "../fixtures/certificates/legacy-pfx.ts";

const NOW = new Date("2026-06-01T12:00:00Z");
const juana = SANDBOX_TAXPAYER_CERTS["11111111-1"];

/** A payer that records what it is asked for, refusing with `refusal` when given one. */
function payer(refusal?: Error) {
  const asked: number[] = [];
  const pay = async (units: number) => {
    asked.push(units);
    if (refusal) throw refusal;
  };
  return { asked, pay };
}

beforeEach(() => clearCredentialCache());

describe("the key-derivation fee", () => {
  it("is one unit per started 10 000 iterations beyond the free 10 240 (OpenSSL's legacy export)", () => {
    expect([FREE_KDF_ITERATIONS, KDF_ITERATIONS_PER_UNIT, MAX_KDF_ITERATIONS]).toEqual([10_240, 10_000, 100_000]);
    expect([0, 10_240, 10_241, 20_240, 20_241, 30_000, 100_000].map(kdfFeeUnits)).toEqual([0, 0, 1, 1, 2, 2, 9]);
  });

  it("is paid before the derivation that passes the free iterations, once a started block, and not at all within them", async () => {
    const { asked, pay } = payer();
    const budget = kdfBudget("pfx-data", pay);
    await budget.charge(5_000);
    await budget.charge(5_240);
    expect(asked).toEqual([]);
    await budget.charge(1);
    expect(asked).toEqual([1]);
    await budget.charge(9_999);
    expect(asked).toEqual([1]);
    await budget.charge(1);
    expect(asked).toEqual([1, 1]);
    await budget.charge(MAX_KDF_ITERATIONS - 20_241);
    expect(asked).toEqual([1, 1, 7]);
    await expect(budget.charge(1)).rejects.toThrow(/at most 100000 iterations/);
    expect(asked).toEqual([1, 1, 7]);
  });

  it("stops the derivation it pays for when it cannot be paid, with the payer's own error", async () => {
    const refusal = new Error("the plan lacks 1 unit");
    const { asked, pay } = payer(refusal);
    const budget = kdfBudget("pkey-data", pay);
    await budget.charge(FREE_KDF_ITERATIONS);
    await expect(budget.charge(1)).rejects.toBe(refusal);
    expect(asked).toEqual([1]);
    expect([isKdfRefusal(refusal), isUnpaidKdfFee(refusal)]).toEqual([true, true]);
  });

  it("charges a legacy PFX at the ceiling (five derivations of 20 000) nine units; the sandbox's at 2048 nothing", async () => {
    const atLimit = payer();
    expect((await readPfx(LEGACY_PFX_AT_LIMIT, "sandbox", atLimit.pay)).keys).toHaveLength(1);
    expect(atLimit.asked).toEqual([1, 2, 2, 2, 2]);
    const sandbox = payer();
    await readPfx(juana.legacyPfxBase64, juana.passphrase, sandbox.pay);
    expect(sandbox.asked).toEqual([]);
  });

  it("passes an unpaid fee through the PFX reader unchanged, not as a wrong passphrase", async () => {
    const refusal = new Error("the plan lacks 1 unit");
    await expect(readPfx(LEGACY_PFX_AT_LIMIT, "sandbox", payer(refusal).pay)).rejects.toBe(refusal);
  });

  it("is paid by the call that parses the credential: a cached one costs nothing more", async () => {
    const input = { "pfx-data": LEGACY_PFX_AT_LIMIT, passphrase: "sandbox" };
    const first = payer();
    expect((await parseCertificateCredential(input, NOW, first.pay)).rut).toBe("11111111-1");
    const again = payer();
    await parseCertificateCredential(input, NOW, again.pay);
    expect([first.asked, again.asked]).toEqual([[1, 2, 2, 2, 2], []]);
  });

  it("is not another caller's to fail: a call sharing a parse that stopped on its payer's plan parses, and pays, itself", async () => {
    const input = { "pfx-data": LEGACY_PFX_AT_LIMIT, passphrase: "sandbox" };
    const refusal = new Error("the first caller's plan lacks 1 unit");
    const broke = payer(refusal);
    const able = payer();
    const [first, second] = await Promise.allSettled([
      parseCertificateCredential(input, NOW, broke.pay),
      parseCertificateCredential(input, NOW, able.pay),
    ]);
    expect(first).toEqual({ status: "rejected", reason: refusal });
    expect(second.status === "fulfilled" && second.value.rut).toBe("11111111-1");
    expect([broke.asked, able.asked]).toEqual([[1], [1, 2, 2, 2, 2]]);
  });
});
