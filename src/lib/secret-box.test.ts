import { describe, expect, it } from "vitest";
import { keyedHash, open, seal } from "./secret-box.ts";

const secret = "a-server-secret-of-at-least-32-characters";

describe("secret box", () => {
  it("opens what it sealed, and only with the same secret and purpose", async () => {
    const box = await seal(secret, "proxy", "hunter2");
    expect(box).not.toContain("hunter2");
    expect(await open(secret, "proxy", box)).toBe("hunter2");
    expect(await open(`${secret}!`, "proxy", box)).toBeNull();
    expect(await open(secret, "session", box)).toBeNull();
    expect(await open(secret, "proxy", `${box.slice(0, -4)}AAAA`)).toBeNull();
    expect(await seal(secret, "proxy", "hunter2")).not.toBe(box);
  });

  it("fingerprints with a keyed hash", async () => {
    expect(await keyedHash(secret, "x")).toMatch(/^[0-9a-f]{64}$/);
    expect(await keyedHash(secret, "x")).toBe(await keyedHash(secret, "x"));
    expect(await keyedHash(`${secret}!`, "x")).not.toBe(await keyedHash(secret, "x"));
    // RFC 4231, test case 2: the same fingerprints as before, so cached sessions keep their keys.
    expect(await keyedHash("Jefe", "what do ya want for nothing?")).toBe(
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    );
  });
});
