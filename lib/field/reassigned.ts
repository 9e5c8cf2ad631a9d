/**
 * A check-in or photo from the field app that arrives after its task went to someone else (issue
 * 44 item 5, "Bad input and faults"; docs/staff-and-audit.md "Offline"): the phone queued it while
 * the task was the sender's, and the dispatcher reassigned (or unassigned) it before the network
 * came back. That is not a stranger's request (403) but a conflict the person must see: 409
 * CONFLICT naming who has the task now (display name only, as the `task.assigned` event does).
 *
 * "Was assigned to the sender" is read from the audit trail (`task.assign` rows with
 * `details.to_staff_id`, lib/field/assign-task.ts), so a person never assigned the task still gets
 * 403 and learns nothing about it.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Tx } from "../db/client.js";
import { auditLog, staffMembers, type Task } from "../db/schema/index.js";
import { DomainError } from "../errors.js";

/**
 * Throws 409 when `staffId` once held `task` and no longer does; returns otherwise (the caller's
 * own check then answers 403 to anyone else).
 * @throws DomainError CONFLICT (`extra.assigned_to`: `{ display_name }` of the new assignee, or null when unassigned)
 */
export async function assertNotReassignedAway(
  tx: Tx,
  task: Pick<Task, "id" | "assignedStaffId" | "status">,
  staffId: string | undefined,
): Promise<void> {
  if (!staffId || task.assignedStaffId === staffId) return;
  const [held] = await tx
    .select({ id: auditLog.id })
    .from(auditLog)
    .where(
      and(
        eq(auditLog.taskId, task.id),
        eq(auditLog.action, "task.assign"),
        sql`${auditLog.details}->>'to_staff_id' = ${staffId}`,
      ),
    )
    .limit(1);
  if (!held) return;
  let name: string | null = null;
  if (task.assignedStaffId) {
    const [now] = await tx
      .select({ name: staffMembers.displayName })
      .from(staffMembers)
      .where(eq(staffMembers.id, task.assignedStaffId));
    name = now?.name ?? null;
  }
  throw new DomainError(
    "CONFLICT",
    name === null
      ? `Task ${task.id} is no longer assigned to you (unassigned by the dispatcher)`
      : `Task ${task.id} was reassigned to ${name}: it is no longer yours`,
    {
      field: "task_id",
      extra: { current_status: task.status, assigned_to: name === null ? null : { display_name: name } },
    },
  );
}
