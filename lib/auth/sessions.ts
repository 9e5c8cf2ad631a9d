/**
 * Client-dashboard sessions, checked server-side on every use of a client JWT.
 *
 * A login writes a `client_sessions` row whose id is the JWT's `jti`. A JWT is accepted only when
 * its signature, issuer, audience and expiry hold (lib/auth/jwt.ts) **and** its session row exists
 * and is not revoked **and** its account still exists, is not `suspended`, has a verified e-mail and
 * has not changed its password after the token was signed. So:
 * - logout (`POST /api/client-auth?action=logout`) revokes the session at once;
 * - a password reset revokes every session of the account;
 * - suspending an account stops its live JWTs (they work again if the operator reactivates it
 *   before they expire; logging in is refused while suspended).
 *
 * Endpoints never read the JWT themselves: the handler wrapper verifies it with
 * `verifyClientSession` for the auth modes `client` and `key_or_client` (lib/http/auth.ts) and
 * hands the endpoint the `ClientPrincipal`.
 */
import { and, eq, gt, isNull } from "drizzle-orm";
import { getDb, type Tx } from "../db/client.js";
import { type ClientAccount, clientAccounts, clientSessions } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { prefixedId } from "../ids.js";
import { type ClientSession, predatesPasswordChange, signClientJwt, verifyClientJwt } from "./jwt.js";

/** A verified client: the session claims and the current account row. */
export interface ClientPrincipal {
  session: ClientSession;
  account: ClientAccount;
}

/**
 * Opens a session for `account` (a row in `client_sessions`) and signs its 24 h JWT.
 * @returns the JWT, its expiry and the session id (`jti`)
 */
export async function openSession(
  account: Pick<ClientAccount, "id" | "orgId" | "email">,
  now = new Date(),
): Promise<{ token: string; expiresAt: Date; sessionId: string }> {
  const sessionId = prefixedId("ses");
  const { token, expiresAt } = await signClientJwt(account, sessionId, now);
  const db = await getDb();
  await db.insert(clientSessions).values({ id: sessionId, accountId: account.id, createdAt: now, expiresAt });
  return { token, expiresAt, sessionId };
}

/** Revokes session `sessionId` (logout). Revoking twice is a no-op. */
export async function revokeSession(sessionId: string, now = new Date()): Promise<void> {
  const db = await getDb();
  await db
    .update(clientSessions)
    .set({ revokedAt: now })
    .where(and(eq(clientSessions.id, sessionId), isNull(clientSessions.revokedAt)));
}

/** Revokes every live session of `accountId` inside `tx` (password reset). */
export async function revokeAccountSessions(tx: Tx, accountId: string, now = new Date()): Promise<void> {
  await tx
    .update(clientSessions)
    .set({ revokedAt: now })
    .where(and(eq(clientSessions.accountId, accountId), isNull(clientSessions.revokedAt)));
}

/**
 * Verifies the client JWT `token` against its session and account (see the module comment).
 * @throws DomainError UNAUTHORIZED with `reason`: `token_expired`, `token_invalid` (lib/auth/jwt.ts),
 *   `session_ended` (logged out, password changed, unknown session), `account_suspended`,
 *   `account_gone`
 */
export async function verifyClientSession(token: string, now = new Date()): Promise<ClientPrincipal> {
  const session = await verifyClientJwt(token);
  const db = await getDb();
  const [row] = await db
    .select({ account: clientAccounts })
    .from(clientSessions)
    .innerJoin(clientAccounts, eq(clientAccounts.id, clientSessions.accountId))
    .where(
      and(
        eq(clientSessions.id, session.sessionId),
        eq(clientSessions.accountId, session.accountId),
        isNull(clientSessions.revokedAt),
        gt(clientSessions.expiresAt, now),
      ),
    );
  if (!row) {
    throw new DomainError("UNAUTHORIZED", "This session has ended (logged out or replaced); log in again", {
      extra: { reason: "session_ended" },
    });
  }
  const account = row.account;
  if (predatesPasswordChange(session, account)) {
    throw new DomainError(
      "UNAUTHORIZED",
      "The password was changed after this token was issued; log in again",
      {
        extra: { reason: "session_ended" },
      },
    );
  }
  if (account.status === "suspended") {
    throw new DomainError("UNAUTHORIZED", "This account is suspended; contact the operator", {
      extra: { reason: "account_suspended" },
    });
  }
  if (!account.emailVerifiedAt) {
    throw new DomainError("UNAUTHORIZED", "The account's e-mail is not verified", {
      extra: { reason: "email_not_verified" },
    });
  }
  return { session, account };
}
