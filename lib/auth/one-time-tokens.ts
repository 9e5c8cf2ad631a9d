/**
 * One-time e-mailed tokens for e-mail verification and password reset (spec
 * "Authentication" 7). The token is shown only in the e-mail; the database keeps its
 * SHA-256. A token expires (verify_email 48 h, reset_password 1 h) and is spent by its
 * first use: redeeming marks it used in the same statement that checks it, so two
 * concurrent redemptions cannot both succeed.
 */
import { and, eq, gt, isNull } from "drizzle-orm";
import type { Tx } from "../db/client.js";
import type { AuthTokenPurpose } from "../db/schema/enums.js";
import { authTokens } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { randomAlphanumeric, sha256Hex } from "../ids.js";

/** Lifetime of each kind of token, seconds. */
export const TOKEN_TTL_SECONDS: Record<AuthTokenPurpose, number> = {
  verify_email: 48 * 3600,
  reset_password: 3600,
};

const PREFIX: Record<AuthTokenPurpose, string> = { verify_email: "vfy_", reset_password: "rst_" };

/** Issues a token for `accountId`, stores its hash and returns the token (to e-mail). */
export async function issueToken(
  tx: Tx,
  accountId: string,
  purpose: AuthTokenPurpose,
  now = new Date(),
): Promise<{ token: string; expiresAt: Date }> {
  const token = `${PREFIX[purpose]}${randomAlphanumeric(40)}`;
  const expiresAt = new Date(now.getTime() + TOKEN_TTL_SECONDS[purpose] * 1000);
  await tx
    .insert(authTokens)
    .values({ tokenHash: sha256Hex(token), accountId, purpose, expiresAt, createdAt: now });
  return { token, expiresAt };
}

/**
 * Spends `token` for `purpose`: marks it used and returns its account id.
 * @throws DomainError UNAUTHORIZED (unknown, wrong purpose, expired or already used)
 */
export async function redeemToken(
  tx: Tx,
  token: string,
  purpose: AuthTokenPurpose,
  now = new Date(),
): Promise<string> {
  const [row] = await tx
    .update(authTokens)
    .set({ usedAt: now })
    .where(
      and(
        eq(authTokens.tokenHash, sha256Hex(token)),
        eq(authTokens.purpose, purpose),
        isNull(authTokens.usedAt),
        gt(authTokens.expiresAt, now),
      ),
    )
    .returning({ accountId: authTokens.accountId });
  if (!row) {
    throw new DomainError(
      "UNAUTHORIZED",
      "The token is invalid, expired or already used; request a new one",
      {
        field: "token",
      },
    );
  }
  return row.accountId;
}

/** Marks every unused token of `accountId` for `purpose` as used (after a password reset). */
export async function revokeTokens(tx: Tx, accountId: string, purpose: AuthTokenPurpose, now = new Date()) {
  await tx
    .update(authTokens)
    .set({ usedAt: now })
    .where(
      and(eq(authTokens.accountId, accountId), eq(authTokens.purpose, purpose), isNull(authTokens.usedAt)),
    );
}
