/**
 * The owner's management of staff accounts (permission `staff.manage`, POST /api/staff; docs/staff-and-audit.md
 * "Staff accounts"): the list, and set_role, suspend (its sessions end in the same transaction),
 * activate and reinvite. The last active owner can be neither suspended nor demoted. Every change
 * records its audit row (`staff.*`) in its own transaction. Invitation is lib/staff/accounts.ts.
 */
import { and, asc, eq, ne, sql } from "drizzle-orm";
import { recordAudit } from "../db/audit.js";
import { getDb } from "../db/client.js";
import type { Role } from "../db/schema/enums.js";
import { type StaffMember, staffMembers } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { issueInvitation, type StaffView, staffView } from "./accounts.js";
import { revokeStaffSessions } from "./sessions.js";

/** Every staff member, owners first then by e-mail. */
export async function listStaff(): Promise<StaffView[]> {
  const db = await getDb();
  const rows = await db.select().from(staffMembers).orderBy(asc(staffMembers.role), asc(staffMembers.email));
  return rows.map(staffView);
}

/** A management action of an owner (POST /api/staff). */
export type StaffChange =
  | { action: "set_role"; staffId: string; role: Role }
  | { action: "suspend"; staffId: string }
  | { action: "activate"; staffId: string }
  | { action: "reinvite"; staffId: string };

/**
 * Applies `change` under a lock of the staff row.
 * @throws DomainError NOT_FOUND (no such staff), CONFLICT (the last active owner would go; reinvite
 *   of an enrolled account; activate of an account never enrolled)
 */
export async function changeStaff(change: StaffChange, now = new Date()): Promise<StaffView> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    // Owners are counted under one lock so that two owners cannot demote each other at once.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('staff_owners'))`);
    const [staff] = await tx
      .select()
      .from(staffMembers)
      .where(eq(staffMembers.id, change.staffId))
      .for("update");
    if (!staff) throw new DomainError("NOT_FOUND", "No staff member with this id", { field: "staff_id" });
    const leavesOwners =
      (change.action === "suspend" || (change.action === "set_role" && change.role !== "owner")) &&
      staff.role === "owner" &&
      staff.status === "active";
    if (leavesOwners) {
      const [other] = await tx
        .select({ id: staffMembers.id })
        .from(staffMembers)
        .where(
          and(
            eq(staffMembers.role, "owner"),
            eq(staffMembers.status, "active"),
            ne(staffMembers.id, staff.id),
          ),
        )
        .limit(1);
      if (!other)
        throw new DomainError("CONFLICT", "This is the last active owner: make another owner first", {
          field: "staff_id",
        });
    }
    let changes: Partial<StaffMember> = {};
    // The audit row's details: the role the member holds (set_role: the role it had and gets).
    let details: Record<string, unknown> = { role: staff.role };
    switch (change.action) {
      case "set_role":
        changes = { role: change.role };
        details = { from: staff.role, to: change.role };
        break;
      case "suspend":
        if (staff.status === "suspended") return staffView(staff);
        changes = { status: "suspended", suspendedAt: now };
        await revokeStaffSessions(tx, staff.id, now);
        break;
      case "activate":
        if (staff.status === "active") return staffView(staff);
        if (!staff.totpEnabledAt)
          throw new DomainError("CONFLICT", "This account never completed its invitation: reinvite it", {
            field: "staff_id",
          });
        changes = { status: "active", suspendedAt: null };
        break;
      case "reinvite":
        if (staff.status !== "invited")
          throw new DomainError("CONFLICT", "This account is enrolled already", { field: "staff_id" });
        await issueInvitation(tx, staff, now);
        await recordAudit(tx, {
          action: "staff.invite",
          targetKind: "staff",
          targetId: staff.id,
          details: { role: staff.role, reinvite: true },
        });
        return staffView(staff);
    }
    await recordAudit(tx, {
      action: `staff.${change.action}`,
      targetKind: "staff",
      targetId: staff.id,
      details,
    });
    const [updated] = await tx
      .update(staffMembers)
      .set({ ...changes, updatedAt: now })
      .where(eq(staffMembers.id, staff.id))
      .returning();
    return staffView(updated!);
  });
}
