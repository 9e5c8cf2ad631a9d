/**
 * Host-side creation of staff (docs/staff-and-audit.md "Bootstrap"): `npm run admin:create-staff`
 * invites a person and hands the invitation code to the host (scripts/admin-create-staff.ts), and
 * `npm run dev` opens an empty staff table with an owner enrolled directly — a random password
 * and a TOTP secret printed once on the host's terminal, so the console can be signed into at once.
 */
import { count } from "drizzle-orm";
import { hashPassword } from "../auth/passwords.js";
import { recordAudit } from "../db/audit.js";
import { getDb } from "../db/client.js";
import type { Role } from "../db/schema/enums.js";
import { type StaffMember, staffMembers } from "../db/schema/index.js";
import { randomAlphanumeric } from "../ids.js";
import { invitationLink, inviteStaff, newStaffRow } from "./accounts.js";
import { newTotpSecret, totpUri } from "./totp.js";

/** What the host command prints once: the staff member and the invitation's code and link. */
export interface HostInvitation {
  staff_id: string;
  email: string;
  role: Role;
  display_name: string;
  invitation_code: string;
  invitation_link: string;
  expires_at: string;
}

/**
 * Invites `email` with `role` (the invitation e-mail is queued as for an owner's invitation) and
 * returns the code and link for the host to print.
 * @throws DomainError CONFLICT (the e-mail already has a staff account)
 */
export async function inviteFromHost(input: {
  email: string;
  role: Role;
  displayName: string;
}): Promise<HostInvitation> {
  const { staff, invitation } = await inviteStaff(input);
  return {
    staff_id: staff.id,
    email: staff.email,
    role: staff.role,
    display_name: staff.displayName,
    invitation_code: invitation.code,
    invitation_link: invitationLink(invitation.code, staff.role),
    expires_at: invitation.expiresAt.toISOString(),
  };
}

/** A staff member enrolled directly, with the credentials shown once. */
export interface EnrolledStaff {
  staff: StaffMember;
  password: string;
  totpSecret: string;
  otpauthUri: string;
}

/** Whether the staff table is empty. */
export async function noStaffYet(): Promise<boolean> {
  const db = await getDb();
  const [row] = await db.select({ n: count() }).from(staffMembers);
  return (row?.n ?? 0) === 0;
}

/**
 * Creates an `active` staff member with a random password (24 characters) and a TOTP secret,
 * without an invitation (the development owner of `npm run dev`). Recorded as `staff.enroll`.
 */
export async function enrollDirectly(input: {
  email: string;
  role: Role;
  displayName: string;
}): Promise<EnrolledStaff> {
  const db = await getDb();
  const password = randomAlphanumeric(24);
  const passwordHash = await hashPassword(password);
  const totpSecret = newTotpSecret();
  const email = input.email.trim().toLowerCase();
  const now = new Date();
  const staff = await db.transaction(async (tx) => {
    const [row] = await tx
      .insert(staffMembers)
      .values({
        ...newStaffRow({ ...input, email }, now),
        status: "active",
        passwordHash,
        totpSecret,
        totpEnabledAt: now,
      })
      .returning();
    await recordAudit(tx, {
      action: "staff.enroll",
      targetKind: "staff",
      targetId: row!.id,
      details: { role: input.role, direct: true },
    });
    return row!;
  });
  return { staff, password, totpSecret, otpauthUri: totpUri(totpSecret, email) };
}
