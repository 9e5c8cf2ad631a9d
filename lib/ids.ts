/**
 * Identifiers and secrets: prefixed, random, URL-safe (docs/api-conventions.md "Names and
 * prefixes"; architecture.md habit 6).
 */
import { createHash, randomBytes } from "node:crypto";

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** `length` characters from [A-Za-z0-9], uniformly (rejection sampling; ~5.95 bits each). */
export function randomAlphanumeric(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += ALPHANUMERIC[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A prefixed id such as `key_3kTq…` (`prefix` + `_` + 20 characters, ~119 bits). */
export function prefixedId(prefix: string, length = 20): string {
  return `${prefix}_${randomAlphanumeric(length)}`;
}

/** Lowercase base36 of a random 48-bit number, padded to 10 characters. */
function randomBase36(): string {
  return randomBytes(6).readUIntBE(0, 6).toString(36).padStart(10, "0");
}

/**
 * A task id `<prefix>-<base36 ms timestamp>-<base36 random>` (docs/api-conventions.md), upper-case,
 * e.g. `TASK-MI9X3K2A-0K5ZQ8W1RT`; sandbox tasks use the prefix `SANDBOX`.
 */
export function newTaskId(prefix: string, now: Date = new Date()): string {
  return `${prefix}-${now.getTime().toString(36)}-${randomBase36()}`.toUpperCase();
}

/** SHA-256 hex digest of a UTF-8 string (stored form of keys and tokens). */
export function sha256Hex(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("hex");
}
