// Names of jobs and events: a prefix and 24 random lower-case letters and digits (124 bits), so
// they fit any path segment and never repeat.
import { randomBytes } from "../lib/crypto.ts";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

export function randomName(prefix: "job" | "evt" | "we"): string {
  let name = "";
  // 252 is the largest multiple of 36 in a byte: the bytes above it are drawn again, so every letter is as likely.
  while (name.length < 24) for (const byte of randomBytes(32)) if (byte < 252 && name.length < 24) name += ALPHABET[byte % 36];
  return `${prefix}_${name}`;
}

/** What a job or event id looks like: checked before any store is asked. */
export const NAME_PATTERN = /^(job|evt)_[a-z0-9]{24}$/;
