// RC2 in CBC mode, decryption only (RFC 2268): PKCS#12 files from Chilean CAs, Windows and old
// OpenSSL encrypt their certificates with pbeWithSHAAnd40BitRC2-CBC. Neither WebCrypto nor
// OpenSSL 3's default provider has RC2, so it is written here from the RFC; the test vectors of
// RFC 2268 §5 check it.

/** PITABLE of RFC 2268 §2 (a permutation of 0..255 from the digits of pi). */
const PITABLE_HEX =
  "d978f9c419ddb5ed28e9fd794aa0d89dc67e37832b76538e624c6488448bfba2179a59f587b34f1361456d8d09817d32bd8f40eb86b77b0bf09521225c6b4e8254d66593ce60b21c7356c014a78cf1dc1275ca1f3bbee4d1423dd430a33cb6266fbf0eda4669075727f21d9bbc944303f811c7f690ef3ee706c3d52fc8661ed708e8eade8052eef784aa72ac354d6a2a961ad2715a1549744b9fd05e0418a4ecc2e0416e0f51cbcc2491af50a1f47039997c3a8523b8b47afc02365b255597312d5dfa98e38a92ae05df2910676cbac9d300e6cfe19ea82c6316013f58e289a90d38341bab33ffb0bb480c5fb9b1cd2ec5f3db47e5a59c770aa62068fe7fc1ad";

let pitable: Uint8Array | undefined;

/** The 64 16-bit round keys (RFC 2268 §2), from a key of any length and the effective key bits. */
export function rc2ExpandKey(key: Uint8Array, effectiveBits: number): Uint16Array {
  if (key.length < 1 || key.length > 128 || effectiveBits < 1 || effectiveBits > 1024) throw new RangeError("RC2 key out of range");
  pitable ??= Uint8Array.from(PITABLE_HEX.match(/../g) ?? [], (h) => Number.parseInt(h, 16));
  const pi = pitable;
  const l = new Uint8Array(128);
  l.set(key);
  const t = key.length;
  for (let i = t; i < 128; i++) l[i] = pi[((l[i - 1] as number) + (l[i - t] as number)) & 0xff] as number;
  const t8 = (effectiveBits + 7) >> 3;
  const tm = 0xff >> (8 * t8 - effectiveBits);
  l[128 - t8] = pi[(l[128 - t8] as number) & tm] as number;
  for (let i = 127 - t8; i >= 0; i--) l[i] = pi[(l[i + 1] as number) ^ (l[i + t8] as number)] as number;
  const k = new Uint16Array(64);
  for (let i = 0; i < 64; i++) k[i] = (l[2 * i] as number) | ((l[2 * i + 1] as number) << 8);
  return k;
}

const ROTATIONS = [1, 2, 3, 5];

/** Decrypts one 8-byte block in place (RFC 2268 §4: r-mixing and r-mashing undone). */
function decryptBlock(k: Uint16Array, block: Uint8Array, at: number): void {
  const r = [0, 1, 2, 3].map((i) => (block[at + 2 * i] as number) | ((block[at + 2 * i + 1] as number) << 8));
  let j = 63;
  const mixRounds = (count: number) => {
    for (let round = 0; round < count; round++) {
      for (let i = 3; i >= 0; i--) {
        const s = ROTATIONS[i] as number;
        let x = r[i] as number;
        x = ((x >> s) | (x << (16 - s))) & 0xffff;
        x =
          (x -
            (k[j--] as number) -
            ((r[(i + 3) & 3] as number) & (r[(i + 2) & 3] as number)) -
            (~(r[(i + 3) & 3] as number) & (r[(i + 1) & 3] as number))) &
          0xffff;
        r[i] = x;
      }
    }
  };
  const mash = () => {
    for (let i = 3; i >= 0; i--) r[i] = ((r[i] as number) - (k[(r[(i + 3) & 3] as number) & 63] as number)) & 0xffff;
  };
  mixRounds(5);
  mash();
  mixRounds(6);
  mash();
  mixRounds(5);
  for (let i = 0; i < 4; i++) {
    block[at + 2 * i] = (r[i] as number) & 0xff;
    block[at + 2 * i + 1] = (r[i] as number) >> 8;
  }
}

/** One block, for the RFC's ECB test vectors. */
export function rc2DecryptBlock(key: Uint8Array, effectiveBits: number, block: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = Uint8Array.from(block);
  decryptBlock(rc2ExpandKey(key, effectiveBits), out, 0);
  return out;
}

/** CBC decryption with PKCS#5 padding removed; null when the padding is wrong (a wrong key, mostly). */
export function rc2CbcDecrypt(key: Uint8Array, effectiveBits: number, iv: Uint8Array, data: Uint8Array): Uint8Array<ArrayBuffer> | null {
  if (iv.length !== 8 || data.length === 0 || data.length % 8 !== 0) return null;
  const k = rc2ExpandKey(key, effectiveBits);
  const out = Uint8Array.from(data);
  for (let at = out.length - 8; at >= 0; at -= 8) {
    decryptBlock(k, out, at);
    const previous = at === 0 ? iv : data.subarray(at - 8, at);
    for (let i = 0; i < 8; i++) out[at + i] = (out[at + i] as number) ^ (previous[i] as number);
  }
  return unpad(out, 8);
}

/** PKCS#5 padding removed (RFC 8018 §6.1.1 step 4), or null when it is not well formed. */
export function unpad(data: Uint8Array<ArrayBuffer>, blockSize: number): Uint8Array<ArrayBuffer> | null {
  const n = data[data.length - 1] ?? 0;
  if (n < 1 || n > blockSize || n > data.length) return null;
  for (let i = data.length - n; i < data.length; i++) if (data[i] !== n) return null;
  return data.slice(0, data.length - n);
}
