/**
 * Client passwords (spec "Limits": at least 8 characters), hashed with bcrypt
 * (bcryptjs, pure JS; cost BCRYPT_COST). bcrypt reads at most 72 bytes, so longer
 * passwords are refused at validation rather than silently truncated.
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { getConfig } from "../config.js";

/** Shortest accepted password, characters (spec "Limits"). */
export const PASSWORD_MIN_LENGTH = 8;
/** Longest accepted password, UTF-8 bytes (bcrypt's input limit). */
export const PASSWORD_MAX_BYTES = 72;

/** A client password: 8 characters to 72 UTF-8 bytes (bcrypt's limit). */
export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN_LENGTH)
  .refine((v) => Buffer.byteLength(v, "utf8") <= PASSWORD_MAX_BYTES, {
    error: `must be at most ${PASSWORD_MAX_BYTES} bytes`,
  })
  .meta({ description: `At least ${PASSWORD_MIN_LENGTH} characters, at most ${PASSWORD_MAX_BYTES} bytes.` });

/** bcryptjs, loaded by the first hash or comparison, not with every operation list (cold start). */
async function loadBcrypt(): Promise<typeof import("bcryptjs").default> {
  return (await import("bcryptjs")).default;
}

/** A bcrypt hash (`$2b$…`) of `password` at the configured cost. */
export async function hashPassword(password: string): Promise<string> {
  const bcrypt = await loadBcrypt();
  return bcrypt.hash(password, getConfig().BCRYPT_COST);
}

let dummy: { cost: number; hash: Promise<string> } | undefined;

/**
 * A hash of a random string at `cost` (the configured BCRYPT_COST), made once per cost: compared
 * against when the account does not exist, so that a login for an unknown e-mail takes as long as
 * one for a known one (issue 25: a fixed cost told the two apart whenever BCRYPT_COST differed).
 */
function dummyHash(bcrypt: Awaited<ReturnType<typeof loadBcrypt>>, cost: number): Promise<string> {
  if (dummy?.cost !== cost) {
    dummy = { cost, hash: bcrypt.hash(randomBytes(18).toString("base64"), cost) };
  }
  return dummy.hash;
}

/**
 * True when `password` matches `hash`. A null `hash` (no account, or an account
 * registered with a key and no password yet) still spends one comparison, against a hash at the
 * configured cost, and answers false.
 */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  const bcrypt = await loadBcrypt();
  if (!hash) {
    await bcrypt.compare(password, await dummyHash(bcrypt, getConfig().BCRYPT_COST));
    return false;
  }
  return bcrypt.compare(password, hash);
}
