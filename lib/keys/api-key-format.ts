/** The API key format: `<KEY_PREFIX>_<40 alphanumerics>` (~238 bits); stored as SHA-256. */
import { randomAlphanumeric, sha256Hex } from "../ids.js";

export const KEY_SECRET_LENGTH = 40;

/** A new key with its stored hash and display hint. */
export function generateApiKey(prefix: string): { key: string; hash: string; hint: string } {
  const key = `${prefix}_${randomAlphanumeric(KEY_SECRET_LENGTH)}`;
  return { key, hash: sha256Hex(key), hint: key.slice(-4) };
}

/** True when `value` has the shape of a key of `prefix` (checked before any lookup). */
export function looksLikeApiKey(value: string, prefix: string): boolean {
  return (
    value.length === prefix.length + 1 + KEY_SECRET_LENGTH &&
    value.startsWith(`${prefix}_`) &&
    /^[A-Za-z0-9]+$/.test(value.slice(prefix.length + 1))
  );
}
