/**
 * Human client login, logout and one-time e-mailed codes (POST /api/client-auth; spec
 * "Client accounts", "Authentication" 7). Missing members → 422 VALIDATION_ERROR (the
 * spec's "422 missing fields"); bad credentials or codes → 401.
 *
 * - `login` {email, password}: a 24 h JWT carrying `org_id`, the account id and its session id
 *   (`jti`). Limited to LOGIN_ATTEMPTS_PER_IP_PER_HOUR (5) per IP (handler wrapper) and
 *   LOGIN_ATTEMPTS_PER_EMAIL_PER_HOUR (10) per e-mail. Refused (403 FORBIDDEN) while the e-mail is
 *   not verified (`reason: email_not_verified`) or the account is suspended (`account_suspended`).
 * - `logout` (the JWT as `Authorization: Bearer`): revokes that session server-side.
 * - `verify-email` {token}: marks the e-mail verified, and nothing else: it links no API key
 *   (linking is an explicit act of the signed-in owner, lib/keys/account-keys.ts).
 * - `reset-request` {email}: e-mails a reset code (valid 1 h) when the account exists;
 *   the answer is identical either way.
 * - `reset-confirm` {token, password}: sets the password; the code is spent, as are
 *   other outstanding reset codes and every open session; the e-mail counts as verified (the code
 *   reached it).
 * `verify-email` and `reset-request` are limited per IP (an IPv6 client for its whole /64, as every
 * per-IP limit: `rateLimitSubject`) and per e-mail
 * (EMAIL_CODE_ATTEMPTS_PER_IP_PER_HOUR, EMAIL_CODE_ATTEMPTS_PER_EMAIL_PER_HOUR; 429 with Retry-After).
 * A `verify-email` attempt counts against its address when the code names one; the same per-address
 * counter also counts the verification e-mails registrations send (lib/accounts/register-account.ts).
 */
import { and, eq } from "drizzle-orm";
import { queueResetEmail } from "../auth/account-emails.js";
import { CLIENT_JWT_TTL_SECONDS } from "../auth/jwt.js";
import { issueToken, redeemToken, revokeTokens } from "../auth/one-time-tokens.js";
import { hashPassword, passwordSchema, verifyPassword } from "../auth/passwords.js";
import type { ClientAuthAction, ClientAuthBody } from "../auth/schemas.js";
import { type ClientPrincipal, openSession, revokeAccountSessions, revokeSession } from "../auth/sessions.js";
import { eventsCommitted } from "../db/after-events.js";
import { getDb } from "../db/client.js";
import { authTokens, clientAccounts } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { sha256Hex } from "../ids.js";
import { emailIdentifier, enforceLimits } from "../ratelimit/enforce.js";
import { rateLimitSubject } from "../ratelimit/limiter.js";
import { parseOrThrow } from "../validation.js";
import { findAccountByEmail } from "./store/find-account.js";

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

/**
 * Where the request came from: its client IP, and the client session the wrapper verified
 * (present on the logout route, auth mode `client`; null elsewhere).
 */
export interface ClientAuthContext {
  ip: string;
  client: ClientPrincipal | null;
}

function need<K extends keyof ClientAuthBody>(body: ClientAuthBody, field: K, action: string): string {
  const value = body[field];
  if (value === undefined || value === "") {
    throw new DomainError("VALIDATION_ERROR", `${field} is required for ${action}`, { field });
  }
  return value;
}

/**
 * Runs `action`.
 * @throws DomainError VALIDATION_ERROR (missing member, weak password), UNAUTHORIZED (credentials, token,
 *   no session for logout), FORBIDDEN (login: e-mail not verified, account suspended), RATE_LIMITED
 */
export async function clientAuth(
  action: ClientAuthAction,
  body: ClientAuthBody,
  context: ClientAuthContext,
  now = new Date(),
): Promise<ClientAuthResponse> {
  switch (action) {
    case "login":
      return login(need(body, "email", action), need(body, "password", action), now);
    case "logout":
      return logout(context.client, now);
    case "verify-email":
      return verifyEmail(need(body, "token", action), context.ip, now);
    case "reset-request":
      return resetRequest(need(body, "email", action), context.ip, now);
    case "reset-confirm":
      return resetConfirm(need(body, "token", action), need(body, "password", action), now);
  }
}

async function login(email: string, password: string, now: Date): Promise<ClientAuthResponse> {
  await enforceLimits([
    { policy: "login_email", identifier: emailIdentifier(email), what: "login attempts per e-mail per hour" },
  ]);
  const account = await findAccountByEmail(email);
  const ok = await verifyPassword(password, account?.passwordHash ?? null);
  if (!account || !ok) throw new DomainError("UNAUTHORIZED", "Invalid e-mail or password");
  if (!account.emailVerifiedAt) {
    throw new DomainError(
      "FORBIDDEN",
      "Verify your e-mail address first: open the link of the verification e-mail (or reset the password, which verifies it)",
      { extra: { reason: "email_not_verified" } },
    );
  }
  if (account.status === "suspended") {
    throw new DomainError("FORBIDDEN", "This account is suspended; contact the operator", {
      extra: { reason: "account_suspended" },
    });
  }
  const { token, expiresAt } = await openSession(account, now);
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

/** @throws DomainError UNAUTHORIZED when no session was verified (only reached off the logout route) */
async function logout(client: ClientPrincipal | null, now: Date): Promise<ClientAuthResponse> {
  if (!client) {
    throw new DomainError(
      "UNAUTHORIZED",
      "Sign in first: send Authorization: Bearer <jwt> from POST /api/client-auth?action=login",
    );
  }
  await revokeSession(client.session.sessionId, now);
  return { ok: true, message: "Logged out: this session's token is no longer accepted." };
}

async function verifyEmail(token: string, ip: string, now: Date): Promise<ClientAuthResponse> {
  const db = await getDb();
  // The e-mail the code was sent to, for the per-e-mail limit (an unknown code counts per IP only).
  const [target] = await db
    .select({ email: clientAccounts.email })
    .from(authTokens)
    .innerJoin(clientAccounts, eq(clientAccounts.id, authTokens.accountId))
    .where(and(eq(authTokens.tokenHash, sha256Hex(token)), eq(authTokens.purpose, "verify_email")));
  await enforceLimits([
    {
      policy: "verify_ip",
      identifier: rateLimitSubject(ip),
      what: "e-mail verification attempts per IP per hour",
    },
    ...(target
      ? [
          {
            policy: "verify_email" as const,
            identifier: emailIdentifier(target.email),
            what: "verification e-mails and attempts per e-mail per hour",
          },
        ]
      : []),
  ]);
  await db.transaction(async (tx) => {
    const accountId = await redeemToken(tx, token, "verify_email", now);
    await tx
      .update(clientAccounts)
      .set({ emailVerifiedAt: now, updatedAt: now })
      .where(eq(clientAccounts.id, accountId));
  });
  return {
    ok: true,
    message: "E-mail address verified. No API key was linked to the account: sign in to create or link keys.",
  };
}

const RESET_REQUESTED =
  "If an account exists for this e-mail, a reset code has been sent to it; it is valid for 1 hour.";

async function resetRequest(email: string, ip: string, now: Date): Promise<ClientAuthResponse> {
  await enforceLimits([
    { policy: "reset_ip", identifier: rateLimitSubject(ip), what: "password-reset requests per IP per hour" },
    {
      policy: "reset_email",
      identifier: emailIdentifier(email),
      what: "password-reset requests per e-mail per hour",
    },
  ]);
  const account = await findAccountByEmail(email);
  if (account) {
    const db = await getDb();
    await db.transaction(async (tx) => {
      const { token, expiresAt } = await issueToken(tx, account.id, "reset_password", now);
      await queueResetEmail(tx, account, token, expiresAt);
    });
    eventsCommitted(); // the reset e-mail goes out on the outbox pass, not the next cron
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
    // Sessions opened with the old password end here (and through password_changed_at).
    await revokeAccountSessions(tx, accountId, now);
    const [row] = await tx.select().from(clientAccounts).where(eq(clientAccounts.id, accountId));
    await tx
      .update(clientAccounts)
      .set({
        passwordHash: hash,
        passwordChangedAt: now,
        emailVerifiedAt: row?.emailVerifiedAt ?? now,
        updatedAt: now,
      })
      .where(eq(clientAccounts.id, accountId));
  });
  return { ok: true, message: "Password changed; log in with the new password." };
}
