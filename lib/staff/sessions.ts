/**
 * Staff sessions, server-side (issue 26 item 1; docs/staff-and-audit.md "Staff accounts"): a
 * sign-in writes a `staff_sessions` row named by the SHA-256 of a random bearer token (`sts_…`,
 * shown once, in the answer and the cookie). Every request checks the row and the staff member:
 * a sign-out, a suspension or a role change revokes at once; a session lasts 12 hours. Revoking a
 * session deletes its Web Push subscriptions in the same statement's transaction (issue 44 item 6).
 */
import { and, eq, gt, inArray, isNull } from "drizzle-orm";
import { getDb, type Tx } from "../db/client.js";
import { pushSubscriptions, type StaffMember, staffMembers, staffSessions } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { prefixedId, randomAlphanumeric, sha256Hex } from "../ids.js";
import { csrfTokenFor, STAFF_TOKEN_PREFIX } from "./credentials.js";

/** Lifetime of a staff session, seconds (12 h). */
export const STAFF_SESSION_TTL_SECONDS = 12 * 3600;

/** A verified staff session: who, with which role, and the session's CSRF token. */
export interface StaffPrincipal {
  sessionId: string;
  staff: Pick<StaffMember, "id" | "email" | "displayName" | "role">;
  expiresAt: Date;
  csrfToken: string;
}

/** A new session: its bearer token (shown once), handle, expiry and CSRF token. */
export interface OpenedStaffSession {
  token: string;
  sessionId: string;
  expiresAt: Date;
  csrfToken: string;
}

/** Opens a 12 h session for `staffId` in `tx` and records the sign-in time. */
export async function openStaffSession(
  tx: Tx,
  staffId: string,
  now = new Date(),
): Promise<OpenedStaffSession> {
  const token = `${STAFF_TOKEN_PREFIX}${randomAlphanumeric(43)}`;
  const sessionId = prefixedId("sss");
  const expiresAt = new Date(now.getTime() + STAFF_SESSION_TTL_SECONDS * 1000);
  await tx
    .insert(staffSessions)
    .values({ id: sessionId, tokenHash: sha256Hex(token), staffId, createdAt: now, expiresAt });
  await tx.update(staffMembers).set({ lastSignInAt: now }).where(eq(staffMembers.id, staffId));
  return { token, sessionId, expiresAt, csrfToken: csrfTokenFor(token) };
}

/** Revokes the session of `token` (sign-out) and deletes its push subscriptions; twice is a no-op. */
export async function revokeStaffSession(token: string, now = new Date()): Promise<void> {
  const db = await getDb();
  await db.transaction(async (tx) => {
    const revoked = await tx
      .update(staffSessions)
      .set({ revokedAt: now })
      .where(and(eq(staffSessions.tokenHash, sha256Hex(token)), isNull(staffSessions.revokedAt)))
      .returning({ id: staffSessions.id });
    if (revoked.length) {
      await tx.delete(pushSubscriptions).where(
        inArray(
          pushSubscriptions.sessionId,
          revoked.map((r) => r.id),
        ),
      );
    }
  });
}

/**
 * Revokes every live session of `staffId` in `tx` (suspension, role change) and deletes every
 * push subscription of the member.
 */
export async function revokeStaffSessions(tx: Tx, staffId: string, now = new Date()): Promise<void> {
  await tx
    .update(staffSessions)
    .set({ revokedAt: now })
    .where(and(eq(staffSessions.staffId, staffId), isNull(staffSessions.revokedAt)));
  await tx.delete(pushSubscriptions).where(eq(pushSubscriptions.staffId, staffId));
}

/**
 * Verifies the staff session `token`: a live (not revoked, not expired) session of an `active`
 * staff member.
 * @throws DomainError UNAUTHORIZED with `reason` `session_ended` (unknown, signed out, expired,
 *   revoked) or `staff_suspended`
 */
export async function verifyStaffSession(token: string, now = new Date()): Promise<StaffPrincipal> {
  const db = await getDb();
  const [row] = await db
    .select({
      sessionId: staffSessions.id,
      expiresAt: staffSessions.expiresAt,
      id: staffMembers.id,
      email: staffMembers.email,
      displayName: staffMembers.displayName,
      role: staffMembers.role,
      status: staffMembers.status,
    })
    .from(staffSessions)
    .innerJoin(staffMembers, eq(staffMembers.id, staffSessions.staffId))
    .where(
      and(
        eq(staffSessions.tokenHash, sha256Hex(token)),
        isNull(staffSessions.revokedAt),
        gt(staffSessions.expiresAt, now),
      ),
    );
  if (!row) {
    throw new DomainError(
      "UNAUTHORIZED",
      "This staff session has ended (signed out, expired or revoked); sign in again",
      {
        extra: { reason: "session_ended" },
      },
    );
  }
  if (row.status !== "active") {
    throw new DomainError("UNAUTHORIZED", "This staff account is suspended", {
      extra: { reason: "staff_suspended" },
    });
  }
  const { sessionId, expiresAt, status: _status, ...staff } = row;
  return { sessionId, staff, expiresAt, csrfToken: csrfTokenFor(token) };
}
