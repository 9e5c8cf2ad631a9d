/**
 * Staff accounts (issue 26 item 1; docs/staff-and-audit.md "Staff accounts"): invitation,
 * enrolment (password + TOTP), sign-in, and the owner's management (role, suspension).
 *
 * - `inviteStaff`: an `invited` row and a one-time code (`inv_…`, 48 h, hash stored) e-mailed to
 *   the person (and returned to the host command that bootstraps the first owner).
 * - `acceptInvitation` {code, password, display_name}: sets the password and a fresh TOTP secret,
 *   answered once so that an authenticator app can read it; the code stays valid until
 *   `confirmEnrollment` {code, totp_code} proves the app has it, which spends the code, activates
 *   the account and opens a session.
 * - `signIn` {email, password, totp_code | recovery_code}: the fallback of the passkey sign-in
 *   (lib/staff/passkeys.ts); failures only are counted (issue 44 item 4), per IP
 *   (STAFF_SIGN_IN_FAILURES_PER_IP_PER_HOUR, high enough for a team behind one address) and per
 *   account (STAFF_SIGN_IN_FAILURES_PER_ACCOUNT within STAFF_LOCKOUT_SECONDS, then the account is
 *   locked: 429 `reason: account_locked` with Retry-After); one answer (401) for every wrong part,
 *   a code never accepted twice.
 * - Management (permission `staff.manage`): invite here; set_role, suspend, activate and reinvite
 *   in lib/staff/manage-staff.ts.
 * Every change records its audit row in its own transaction (`staff.*`).
 */
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { hashPassword, verifyPassword } from "../auth/passwords.js";
import { getConfig, publicBaseUrl } from "../config.js";
import { recordAudit } from "../db/audit.js";
import { getDb, type Tx } from "../db/client.js";
import type { Role } from "../db/schema/enums.js";
import {
  emails,
  type NewStaffMember,
  type StaffMember,
  staffInvitations,
  staffMembers,
} from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { prefixedId, randomAlphanumeric, sha256Hex } from "../ids.js";
import { emailIdentifier, type FailureLimit, failureLimits } from "../ratelimit/enforce.js";
import { rateLimitSubject } from "../ratelimit/limiter.js";
import { issueRecoveryCodes, spendRecoveryCode } from "./recovery-codes.js";
import { type OpenedStaffSession, openStaffSession } from "./sessions.js";
import { recordSignIn } from "./sign-in-audit.js";
import { checkTotp, newTotpSecret, totpUri } from "./totp.js";

/** Lifetime of an invitation code, seconds (48 h). */
export const INVITATION_TTL_SECONDS = 48 * 3600;
/** Prefix of invitation codes (redacted from sent e-mails like the other one-time codes). */
export const INVITATION_PREFIX = "inv_";

/** A staff member as the API shows it (no secrets). */
export interface StaffView {
  staff_id: string;
  email: string;
  display_name: string;
  role: Role;
  status: StaffMember["status"];
  totp_enrolled: boolean;
  created_at: string;
  last_sign_in_at: string | null;
}

/** `row` as the API shows it. */
export function staffView(row: StaffMember): StaffView {
  return {
    staff_id: row.id,
    email: row.email,
    display_name: row.displayName,
    role: row.role,
    status: row.status,
    totp_enrolled: row.totpEnabledAt !== null,
    created_at: row.createdAt.toISOString(),
    last_sign_in_at: row.lastSignInAt?.toISOString() ?? null,
  };
}

/**
 * The enrolment page with the code filled in (the invitation e-mail links to it): the field app's
 * (`/field/#/accept?code=…`) for the `field` role, who work there and have no console section
 * (issue 44 item 2), else the console's (`/operator/#/accept?code=…`). Both enrol and sign in.
 */
export function invitationLink(code: string, role: Role): string {
  const page = role === "field" ? "/field/" : "/operator/";
  return `${publicBaseUrl()}${page}#/accept?code=${encodeURIComponent(code)}`;
}

/**
 * Issues a one-time invitation code for `staff` in `tx` (hash stored, valid INVITATION_TTL_SECONDS)
 * and queues the bilingual invitation e-mail with its link. @returns the code and its expiry
 */
export async function issueInvitation(
  tx: Tx,
  staff: StaffMember,
  now: Date,
): Promise<{ code: string; expiresAt: Date }> {
  const code = `${INVITATION_PREFIX}${randomAlphanumeric(40)}`;
  const expiresAt = new Date(now.getTime() + INVITATION_TTL_SECONDS * 1000);
  await tx
    .insert(staffInvitations)
    .values({ codeHash: sha256Hex(code), staffId: staff.id, expiresAt, createdAt: now });
  const link = invitationLink(code, staff.role);
  const field = staff.role === "field";
  await tx.insert(emails).values({
    id: prefixedId("em"),
    toAddress: staff.email,
    subject: field
      ? "Invitation — field app / Invitation — application terrain"
      : "Invitation — operator console / Invitation — console de l'opérateur",
    textBody:
      `You are invited to the ${field ? "field app" : "operator console"} as ${staff.role}. Open ${link} within 48 hours, choose a ` +
      `password and add the account to an authenticator app (TOTP). Code: ${code}\n\n` +
      `Vous êtes invité·e ${field ? "à l'application terrain" : "à la console de l'opérateur"} (rôle ${staff.role}). Ouvrez ${link} d'ici 48 heures, ` +
      `choisissez un mot de passe et ajoutez le compte à une application d'authentification (TOTP). Code : ${code}\n`,
    template: "staff_invitation",
    lang: "fr",
    dedupeKey: `staff_invitation:${sha256Hex(code).slice(0, 16)}:${staff.id}`,
  });
  return { code, expiresAt };
}

/**
 * The row of a new staff member `input` (e-mail already lowercased), created at `now` with a fresh
 * `stf_` id; `status` and the credentials keep their column defaults (`invited`, none) unless
 * the caller adds them (lib/staff/bootstrap.ts enrols directly).
 */
export function newStaffRow(
  input: { email: string; role: Role; displayName: string },
  now: Date,
): NewStaffMember {
  return {
    id: prefixedId("stf"),
    email: input.email,
    displayName: input.displayName,
    role: input.role,
    createdAt: now,
    updatedAt: now,
  };
}

/**
 * Invites `email` with `role`: an `invited` staff member and an e-mailed one-time code.
 * @returns the staff member and the invitation (its code is for the host command; the HTTP
 *   answer leaves it out)
 * @throws DomainError CONFLICT (the e-mail already has a staff account)
 */
export async function inviteStaff(
  input: { email: string; role: Role; displayName: string },
  now = new Date(),
): Promise<{ staff: StaffMember; invitation: { code: string; expiresAt: Date } }> {
  const db = await getDb();
  const email = input.email.trim().toLowerCase();
  /** The CONFLICT of an e-mail that already has a staff account (`staffId`, when known). */
  const taken = (staffId: string | undefined) =>
    new DomainError("CONFLICT", "This e-mail already has a staff account (reinvite or change its role)", {
      field: "email",
      extra: staffId ? { staff_id: staffId } : {},
    });
  const existingId = async (tx: Tx) =>
    (await tx.select({ id: staffMembers.id }).from(staffMembers).where(eq(staffMembers.email, email)))[0]?.id;
  return db.transaction(async (tx) => {
    const existing = await existingId(tx);
    if (existing) throw taken(existing);
    // A concurrent invitation of the same address may commit between the check and the insert:
    // the unique e-mail then keeps this one out, and it is the same CONFLICT.
    const [staff] = await tx
      .insert(staffMembers)
      .values(newStaffRow({ ...input, email }, now))
      .onConflictDoNothing()
      .returning();
    if (!staff) throw taken(await existingId(tx));
    const invitation = await issueInvitation(tx, staff!, now);
    await recordAudit(tx, {
      action: "staff.invite",
      targetKind: "staff",
      targetId: staff!.id,
      details: { role: input.role },
    });
    return { staff: staff!, invitation };
  });
}

/** The staff member of a live invitation `code`, locked in `tx`. @throws DomainError UNAUTHORIZED */
async function invitationOf(tx: Tx, code: string, now: Date): Promise<StaffMember> {
  const [row] = await tx
    .select({ staff: staffMembers })
    .from(staffInvitations)
    .innerJoin(staffMembers, eq(staffMembers.id, staffInvitations.staffId))
    .where(
      and(
        eq(staffInvitations.codeHash, sha256Hex(code)),
        isNull(staffInvitations.usedAt),
        gt(staffInvitations.expiresAt, now),
      ),
    )
    .for("update");
  if (row?.staff.status !== "invited") {
    throw new DomainError(
      "UNAUTHORIZED",
      "The invitation code is invalid, expired or already used; ask an owner for a new one",
      {
        field: "code",
        extra: { reason: "invitation_invalid" },
      },
    );
  }
  return row.staff;
}

/**
 * First step of enrolment: sets the password and display name and a fresh TOTP secret.
 * @returns the secret and its `otpauth://` URI (shown once, for the authenticator app)
 * @throws DomainError UNAUTHORIZED (invitation invalid or expired)
 */
export async function acceptInvitation(
  input: { code: string; password: string; displayName?: string | undefined },
  now = new Date(),
): Promise<{ staff: StaffMember; totpSecret: string; otpauthUri: string }> {
  const db = await getDb();
  const passwordHash = await hashPassword(input.password);
  return db.transaction(async (tx) => {
    const staff = await invitationOf(tx, input.code, now);
    const totpSecret = newTotpSecret();
    const [updated] = await tx
      .update(staffMembers)
      .set({
        passwordHash,
        totpSecret,
        totpLastStep: null,
        ...(input.displayName ? { displayName: input.displayName } : {}),
        updatedAt: now,
      })
      .where(eq(staffMembers.id, staff.id))
      .returning();
    return { staff: updated!, totpSecret, otpauthUri: totpUri(totpSecret, staff.email) };
  });
}

/**
 * Second step: a code from the authenticator app proves it holds the secret; the invitation is
 * spent, the account `active`, a session opened and RECOVERY_CODE_COUNT recovery codes issued
 * (lib/staff/recovery-codes.ts; answered once).
 * @throws DomainError UNAUTHORIZED (invitation invalid, TOTP wrong), CONFLICT (password not set yet)
 */
export async function confirmEnrollment(
  input: { code: string; totpCode: string },
  now = new Date(),
): Promise<{ staff: StaffMember; session: OpenedStaffSession; recoveryCodes: string[] }> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const staff = await invitationOf(tx, input.code, now);
    if (!staff.passwordHash || !staff.totpSecret) {
      throw new DomainError("CONFLICT", "Choose a password first (action accept-invite)", { field: "code" });
    }
    const step = await checkTotp(staff.totpSecret, input.totpCode, null);
    if (step === null) {
      throw new DomainError("UNAUTHORIZED", "The authenticator code is wrong or expired", {
        field: "totp_code",
      });
    }
    await tx.update(staffInvitations).set({ usedAt: now }).where(eq(staffInvitations.staffId, staff.id));
    const [active] = await tx
      .update(staffMembers)
      .set({ status: "active", totpEnabledAt: now, totpLastStep: step, updatedAt: now })
      .where(eq(staffMembers.id, staff.id))
      .returning();
    await recordAudit(tx, {
      action: "staff.enroll",
      targetKind: "staff",
      targetId: staff.id,
      details: { role: staff.role },
    });
    const recoveryCodes = await issueRecoveryCodes(tx, staff.id, now);
    return { staff: active!, session: await openStaffSession(tx, staff.id, now), recoveryCodes };
  });
}

/** The per-IP failure limit of staff sign-in (password or passkey) from `ip`. */
export function ipSignInLimit(ip: string): FailureLimit {
  return {
    policy: "staff_sign_in_ip",
    identifier: rateLimitSubject(ip),
    reason: "too_many_failures_from_ip",
    what: "failed sign-ins from this address per hour",
  };
}

/**
 * The failure-only limits of a staff sign-in from `ip` for `email` (docs/staff-and-audit.md
 * "Sign-in limits"): the account first (its lockout is the more precise answer), then the IP. The
 * account is counted by its e-mail's hash, whether or not an account has it (no enumeration).
 */
function signInLimits(email: string, ip: string): FailureLimit[] {
  const config = getConfig();
  return [
    {
      policy: "staff_sign_in_account",
      identifier: emailIdentifier(`staff:${email}`),
      reason: "account_locked",
      what: `failed sign-ins of this account within ${Math.round(config.STAFF_LOCKOUT_SECONDS / 60)} min: the account is locked`,
    },
    ipSignInLimit(ip),
  ];
}

/**
 * Signs a staff member in with e-mail, password and a TOTP code or one of their recovery codes
 * (the fallback of the passkey sign-in, lib/staff/passkeys.ts), from `ip` (the caller's address,
 * for the per-IP failure limit). Only failures are counted (a wrong part, a replayed TOTP code, a
 * spent recovery code). The session opens with its audit row `staff.sign_in` (`method`
 * `password_totp` or `password_recovery_code`).
 * @throws DomainError RATE_LIMITED (`reason` `account_locked` or `too_many_failures_from_ip`, with
 *   Retry-After), UNAUTHORIZED (any part wrong, or the code already used), FORBIDDEN (`reason`
 *   `staff_suspended`, once the credentials were right); StorageError (the limits' storage)
 */
export async function signIn(
  input: { email: string; password: string; totpCode?: string; recoveryCode?: string; ip: string },
  now = new Date(),
): Promise<{ staff: StaffMember; session: OpenedStaffSession }> {
  const email = input.email.trim().toLowerCase();
  const limits = signInLimits(email, input.ip);
  await failureLimits.check(limits);
  const refused = new DomainError("UNAUTHORIZED", "Invalid e-mail, password or authenticator code");
  const fail = async (): Promise<never> => {
    await failureLimits.fail(limits);
    throw refused;
  };
  const db = await getDb();
  const [staff] = await db.select().from(staffMembers).where(eq(staffMembers.email, email));
  const passwordOk = await verifyPassword(input.password, staff?.passwordHash ?? null);
  if (!staff || !passwordOk || !staff.totpSecret || !staff.totpEnabledAt) return fail();
  const recoveryCode = input.recoveryCode;
  const step = recoveryCode
    ? null
    : await checkTotp(staff.totpSecret, input.totpCode ?? "", staff.totpLastStep);
  if (!recoveryCode && step === null) return fail();
  if (staff.status !== "active") {
    throw new DomainError("FORBIDDEN", "This staff account is suspended; ask an owner", {
      extra: { reason: "staff_suspended" },
    });
  }
  const opened = await db.transaction(async (tx) => {
    if (recoveryCode) {
      // A recovery code is spent by one sign-in only.
      if (!(await spendRecoveryCode(tx, staff.id, recoveryCode, now))) return null;
    } else {
      // A TOTP code is spent by one sign-in only: the step moves forward or the sign-in is refused.
      const [spent] = await tx
        .update(staffMembers)
        .set({ totpLastStep: step })
        .where(
          and(
            eq(staffMembers.id, staff.id),
            sql`(${staffMembers.totpLastStep} is null or ${staffMembers.totpLastStep} < ${step})`,
          ),
        )
        .returning({ id: staffMembers.id });
      if (!spent) return null;
    }
    const session = await openStaffSession(tx, staff.id, now);
    await recordSignIn(
      tx,
      staff,
      recoveryCode ? "password_recovery_code" : "password_totp",
      session.sessionId,
    );
    return { staff, session };
  });
  return opened ?? fail();
}
