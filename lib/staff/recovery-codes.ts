/**
 * Recovery codes of staff sign-in (issue 44 item 3; docs/staff-and-audit.md "Staff accounts"): ten
 * one-time codes, shown once at enrolment (`confirm-totp`) or when the member asks for new ones
 * (POST /api/staff-credentials `action=recovery-codes`, which replaces every earlier code), each
 * accepted once in place of the authenticator's code at the password sign-in.
 *
 * A code is 16 characters from a 31-letter alphabet without look-alikes (79 bits), shown as
 * `xxxx-xxxx-xxxx-xxxx`; case, spaces and dashes are ignored when typed. Only its SHA-256 is stored
 * (`staff_recovery_codes`): 79 random bits need no slow hash (decision 52), and the lookup is one
 * indexed row.
 */
import { randomBytes } from "node:crypto";
import { and, count, eq, isNull } from "drizzle-orm";
import { getDb, type Tx } from "../db/client.js";
import { staffRecoveryCodes } from "../db/schema/index.js";
import { sha256Hex } from "../ids.js";

/** Codes issued at a time. */
export const RECOVERY_CODE_COUNT = 10;
/** Characters of a code (without dashes). */
const CODE_LENGTH = 16;
/** No 0/o, 1/l/i: read off paper and typed on a phone. */
const ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";

/** A new code, `xxxx-xxxx-xxxx-xxxx` (uniform over ALPHABET, rejection sampling). */
function newCode(): string {
  let out = "";
  while (out.length < CODE_LENGTH) {
    for (const byte of randomBytes(CODE_LENGTH * 2)) {
      if (byte < 248 - (248 % ALPHABET.length)) out += ALPHABET[byte % ALPHABET.length];
      if (out.length === CODE_LENGTH) break;
    }
  }
  return out.match(/.{4}/g)!.join("-");
}

/** `code` as stored: lower case, without spaces or dashes. */
export function normaliseRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]+/g, "");
}

/**
 * Replaces every recovery code of `staffId` with RECOVERY_CODE_COUNT new ones, in `tx`.
 * @returns the new codes in clear (to show once; never stored)
 */
export async function issueRecoveryCodes(tx: Tx, staffId: string, now = new Date()): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
  await tx.delete(staffRecoveryCodes).where(eq(staffRecoveryCodes.staffId, staffId));
  await tx
    .insert(staffRecoveryCodes)
    .values(
      codes.map((code) => ({ codeHash: sha256Hex(normaliseRecoveryCode(code)), staffId, createdAt: now })),
    );
  return codes;
}

/**
 * Spends `code` of `staffId` in `tx`: true when it was an unused code of this member (now used),
 * false otherwise (wrong, another member's, or already used — a code is accepted once).
 */
export async function spendRecoveryCode(
  tx: Tx,
  staffId: string,
  code: string,
  now = new Date(),
): Promise<boolean> {
  const spent = await tx
    .update(staffRecoveryCodes)
    .set({ usedAt: now })
    .where(
      and(
        eq(staffRecoveryCodes.codeHash, sha256Hex(normaliseRecoveryCode(code))),
        eq(staffRecoveryCodes.staffId, staffId),
        isNull(staffRecoveryCodes.usedAt),
      ),
    )
    .returning({ codeHash: staffRecoveryCodes.codeHash });
  return spent.length === 1;
}

/** How many unused recovery codes `staffId` has left. */
export async function recoveryCodesLeft(staffId: string): Promise<number> {
  const db = await getDb();
  const [row] = await db
    .select({ n: count() })
    .from(staffRecoveryCodes)
    .where(and(eq(staffRecoveryCodes.staffId, staffId), isNull(staffRecoveryCodes.usedAt)));
  return Number(row?.n ?? 0);
}
