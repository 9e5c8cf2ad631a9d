/**
 * Assignment (POST /api/task-assign, issue 26 item 4; docs/staff-and-audit.md "Assignment"): a
 * dispatcher (or the owner) gives a paid, dispatched or on-site task to one field staff member,
 * gives it to another, or takes it back (`staff_id` null). The change, its `task.assigned` event
 * (the outbox: webhooks, callbacks, the stream) and its audit row (`task.assign` /
 * `task.unassign`) are written in one transaction; assigning the person already assigned writes
 * nothing (idempotent). The event names the person only by the display name they chose.
 */
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { eventsCommitted } from "../db/after-events.js";
import { recordAudit } from "../db/audit.js";
import { getDb } from "../db/client.js";
import type { Role, TaskStatus } from "../db/schema/enums.js";
import { staffMembers, type Task, taskEvents, tasks } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { getTaskOrThrow } from "../tasks/state/apply-transition.js";
import { noticeEventRow } from "../tasks/state/task-events.js";
import type { AssignTaskBody } from "./schemas.js";

/** Statuses a task may be assigned, reassigned or unassigned in. */
export const ASSIGNABLE_STATUSES: readonly TaskStatus[] = ["paid", "dispatched", "on_site"];
/** Roles a task may be assigned to. */
export const ASSIGNEE_ROLES: readonly Role[] = ["field", "owner"];

/** The staff member `staffId` if it may be assigned a task (active, role field or owner). */
async function assignee(staffId: string) {
  const db = await getDb();
  const [staff] = await db
    .select({
      id: staffMembers.id,
      displayName: staffMembers.displayName,
      role: staffMembers.role,
      status: staffMembers.status,
    })
    .from(staffMembers)
    .where(eq(staffMembers.id, staffId));
  if (staff?.status !== "active" || !ASSIGNEE_ROLES.includes(staff.role)) {
    throw new DomainError(
      "VALIDATION_ERROR",
      `staff_id must name an active staff member with role ${ASSIGNEE_ROLES.join(" or ")}` +
        (staff ? ` (${staff.id} is ${staff.status}, role ${staff.role})` : ` (no staff member ${staffId})`),
      { field: "staff_id" },
    );
  }
  return staff;
}

/**
 * Assigns task `body.task_id` to `body.staff_id`, or unassigns it (null).
 * @returns the task after the change (unchanged when it was already so)
 * @throws DomainError NOT_FOUND (task), CONFLICT (status not paid, dispatched or on_site; `current_status`), VALIDATION_ERROR (staff_id)
 */
export async function assignTask(body: AssignTaskBody, now = new Date()): Promise<Task> {
  const staff = body.staff_id === null ? null : await assignee(body.staff_id);
  const db = await getDb();
  let changed = false;
  const task = await db.transaction(async (tx) => {
    const task = await getTaskOrThrow(body.task_id, tx, true);
    if (!ASSIGNABLE_STATUSES.includes(task.status)) {
      throw new DomainError(
        "CONFLICT",
        `Cannot assign task ${task.id}: its status is ${task.status} (assignable: ${ASSIGNABLE_STATUSES.join(", ")})`,
        { extra: { current_status: task.status } },
      );
    }
    if (task.assignedStaffId === (staff?.id ?? null)) return task;
    const [updated] = await tx
      .update(tasks)
      .set({
        assignedStaffId: staff?.id ?? null,
        assignedAt: staff ? now : null,
        version: sql`${tasks.version} + 1`,
        updatedAt: now,
      })
      .where(eq(tasks.id, task.id))
      .returning();
    const event = noticeEventRow(
      task,
      "task.assigned",
      {
        assignment: staff
          ? { operator_display_name: staff.displayName, assigned_at: now.toISOString() }
          : null,
      },
      now,
    );
    await tx.insert(taskEvents).values(event);
    await recordAudit(tx, {
      action: staff ? "task.assign" : "task.unassign",
      taskId: task.id,
      targetKind: "staff",
      targetId: staff?.id ?? task.assignedStaffId ?? undefined,
      details: { from_staff_id: task.assignedStaffId, to_staff_id: staff?.id ?? null, event_id: event.id },
    });
    changed = true;
    return updated!;
  });
  if (changed) eventsCommitted();
  return task;
}

/**
 * The people a task can be assigned to: active staff with role `field` or `owner`, field staff
 * first, then by display name.
 * @returns `{ staff_id, display_name, role }` each (no e-mail: dispatchers need no more)
 */
export async function listAssignableStaff(): Promise<
  { staff_id: string; display_name: string; role: "field" | "owner" }[]
> {
  const db = await getDb();
  const rows = await db
    .select({ id: staffMembers.id, name: staffMembers.displayName, role: staffMembers.role })
    .from(staffMembers)
    .where(and(eq(staffMembers.status, "active"), inArray(staffMembers.role, ["field", "owner"])))
    .orderBy(asc(staffMembers.role), asc(staffMembers.displayName));
  return rows.map((r) => ({ staff_id: r.id, display_name: r.name, role: r.role as "field" | "owner" }));
}
