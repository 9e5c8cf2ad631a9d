/**
 * Human client login and one-time e-mailed tokens (POST /api/client-auth; spec
 * "Client accounts", "Authentication" 7). Missing members → 422 VALIDATION_ERROR (the
 * spec's "422 missing fields"); bad credentials or tokens → 401.
 *
 * - `login` {email, password}: a 24 h JWT carrying `org_id` and the account id. Limited
 *   to LOGIN_ATTEMPTS_PER_IP_PER_HOUR (5) per IP per hour by the handler wrapper.
 * - `verify-email` {token}: marks the e-mail verified.
 * - `reset-request` {email}: e-mails a reset code (valid 1 h) when the account exists;
 *   the answer is identical either way.
 * - `reset-confirm` {token, password}: sets the password; the code is spent, as are
 *   other outstanding reset codes; the e-mail counts as verified (the code reached it).
 */
import { eq } from "drizzle-orm";
import { findAccountByEmail } from "../accounts/find-account.js";
import { passwordSchema } from "../accounts/schemas.js";
import { getDb } from "../db/client.js";
import { clientAccounts } from "../db/schema/index.js";
import { ApiError } from "../http/errors.js";
import { parseOrThrow } from "../http/validation.js";
import { queueResetEmail } from "./account-emails.js";
import { CLIENT_JWT_TTL_SECONDS, signClientJwt } from "./jwt.js";
import { issueToken, redeemToken, revokeTokens } from "./one-time-tokens.js";
import { hashPassword, verifyPassword } from "./passwords.js";
import type { ClientAuthAction, ClientAuthBody } from "./schemas.js";

/** The response of every action. */
export interface ClientAuthResponse {
  ok: boolean;
  message: string;
  token?: string;
  token_type?: "Bearer";
  expires_in?: number;
  expires_at?: string;
  org_id?: string;
  account_id?: string;
}

function need<K extends keyof ClientAuthBody>(body: ClientAuthBody, field: K, action: string): string {
  const value = body[field];
  if (value === undefined || value === "") {
    throw new ApiError("VALIDATION_ERROR", `${field} is required for ${action}`, { field });
  }
  return value;
}

/**
 * Runs `action`.
 * @throws ApiError VALIDATION_ERROR (missing member, weak password), UNAUTHORIZED (credentials, token)
 */
export async function clientAuth(
  action: ClientAuthAction,
  body: ClientAuthBody,
  now = new Date(),
): Promise<ClientAuthResponse> {
  switch (action) {
    case "login":
      return login(need(body, "email", action), need(body, "password", action), now);
    case "verify-email":
      return verifyEmail(need(body, "token", action), now);
    case "reset-request":
      return resetRequest(need(body, "email", action), now);
    case "reset-confirm":
      return resetConfirm(need(body, "token", action), need(body, "password", action), now);
  }
}

async function login(email: string, password: string, now: Date): Promise<ClientAuthResponse> {
  const account = await findAccountByEmail(email);
  const ok = await verifyPassword(password, account?.passwordHash ?? null);
  if (!account || !ok) throw new ApiError("UNAUTHORIZED", "Invalid e-mail or password");
  const { token, expiresAt } = await signClientJwt(account, now);
  return {
    ok: true,
    message: "Logged in. Send the token as Authorization: Bearer <token>; it expires in 24 hours.",
    token,
    token_type: "Bearer",
    expires_in: CLIENT_JWT_TTL_SECONDS,
    expires_at: expiresAt.toISOString(),
    org_id: account.orgId,
    account_id: account.id,
  };
}

async function verifyEmail(token: string, now: Date): Promise<ClientAuthResponse> {
  const db = await getDb();
  await db.transaction(async (tx) => {
    const accountId = await redeemToken(tx, token, "verify_email", now);
    await tx
      .update(clientAccounts)
      .set({ emailVerifiedAt: now, updatedAt: now })
      .where(eq(clientAccounts.id, accountId));
  });
  return { ok: true, message: "E-mail address verified." };
}

const RESET_REQUESTED =
  "If an account exists for this e-mail, a reset code has been sent to it; it is valid for 1 hour.";

async function resetRequest(email: string, now: Date): Promise<ClientAuthResponse> {
  const account = await findAccountByEmail(email);
  if (account) {
    const db = await getDb();
    await db.transaction(async (tx) => {
      const { token, expiresAt } = await issueToken(tx, account.id, "reset_password", now);
      await queueResetEmail(tx, account, token, expiresAt);
    });
  }
  return { ok: true, message: RESET_REQUESTED };
}

async function resetConfirm(token: string, password: string, now: Date): Promise<ClientAuthResponse> {
  parseOrThrow(passwordSchema, password, "password");
  const hash = await hashPassword(password);
  const db = await getDb();
  await db.transaction(async (tx) => {
    const accountId = await redeemToken(tx, token, "reset_password", now);
    await revokeTokens(tx, accountId, "reset_password", now);
    const [row] = await tx.select().from(clientAccounts).where(eq(clientAccounts.id, accountId));
    await tx
      .update(clientAccounts)
      .set({
        passwordHash: hash,
        // Sessions opened with the old password end here (lib/auth/jwt.ts predatesPasswordChange).
        passwordChangedAt: now,
        emailVerifiedAt: row?.emailVerifiedAt ?? now,
        updatedAt: now,
      })
      .where(eq(clientAccounts.id, accountId));
  });
  return { ok: true, message: "Password changed; log in with the new password." };
}
