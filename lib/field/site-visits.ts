/**
 * Check-in and check-out of a site visit (POST /api/field-visit, issue 26 item 5;
 * docs/staff-and-audit.md "Geofence"). Only the task's assignee checks in, with the position its
 * phone reports; the server measures the distance to the task's place (lib/field/geofence.ts).
 *
 * - check_in inside the geofence: the visit is written (`within_geofence` true) and the task goes
 *   `on_site` (transition `arrive`, event `task.on_site`). A `paid` task is dispatched first, in the
 *   same transaction (transition `dispatch`, event `task.dispatched`): the assignment was the
 *   dispatcher's decision and the person standing there is the dispatch (docs/decisions.md). An
 *   `on_site` task (marked from the console) only gets its visit.
 * - check_in outside without a reason: 422 VALIDATION_ERROR on `reason` with `distance_m` and
 *   `geofence_m`; nothing is written. With a reason: as inside, but `within_geofence` false and the
 *   reason kept (flagged in the evidence).
 * - A second check_in answers the first visit unchanged (idempotent); check_out before check_in →
 *   409; a second check_out answers the first.
 * - Made offline (issue 44 item 5; docs/staff-and-audit.md "Offline"): the body's `captured_at` is
 *   when the phone took the position; it is bounded (lib/field/captured-at.ts: 422 on captured_at),
 *   becomes `checked_in_at` (or `checked_out_at`) while `check_in_received_at` keeps the server's
 *   time; the geofence is judged on the position sent, the one taken at capture. Sent after the
 *   task was reassigned: 409 naming the new assignee (lib/field/reassigned.ts).
 * Each change, its events and its audit row (`visit.check_in`, `visit.check_out`) are one transaction.
 */
import { eq } from "drizzle-orm";
import { getConfig } from "../config.js";
import { eventsCommitted } from "../db/after-events.js";
import { recordAudit } from "../db/audit.js";
import { getDb } from "../db/client.js";
import type { TaskStatus } from "../db/schema/enums.js";
import { type SiteVisit, siteVisits, type Task } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { applyTransition, getTaskOrThrow } from "../tasks/state/apply-transition.js";
import { readSiteVisit } from "../tasks/state/site-visit.js";
import { boundedCapturedAt } from "./captured-at.js";
import { checkGeofence } from "./geofence.js";
import { assertNotReassignedAway } from "./reassigned.js";
import type { FieldVisitBody } from "./schemas.js";

/** Statuses a check-in is accepted in. */
const CHECK_IN_STATUSES: readonly TaskStatus[] = ["paid", "dispatched", "on_site"];

/**
 * Refuses anyone but the task's assignee (a visit is the assignee's own, whatever the role).
 * @throws DomainError FORBIDDEN
 */
export function assertOwnTask(task: Pick<Task, "id" | "assignedStaffId">, staffId: string | undefined): void {
  if (!staffId || task.assignedStaffId !== staffId) {
    throw new DomainError(
      "FORBIDDEN",
      staffId
        ? `Task ${task.id} is not assigned to you`
        : "Site visits are recorded by the assigned staff member, signed in (a staff session)",
      { field: "task_id" },
    );
  }
}

/**
 * Records `body.action` for staff member `staffId` at `now`.
 * @returns the task and its visit after the change
 * @throws DomainError NOT_FOUND, FORBIDDEN (not the assignee), CONFLICT (status; check_out before check_in; reassigned since), VALIDATION_ERROR (outside the geofence without a reason; captured_at out of bounds)
 */
export async function recordVisit(
  body: FieldVisitBody,
  staffId: string | undefined,
  now = new Date(),
): Promise<{ task: Task; visit: SiteVisit }> {
  const config = getConfig();
  const db = await getDb();
  let moved = false;
  const result = await db.transaction(async (tx) => {
    let task = await getTaskOrThrow(body.task_id, tx, true);
    await assertNotReassignedAway(tx, task, staffId);
    assertOwnTask(task, staffId);
    const at = boundedCapturedAt(body.captured_at, task, now, config);
    const offline = body.captured_at !== undefined;
    const existing = await readSiteVisit(task.id, tx);
    const fence = checkGeofence(
      task,
      { latitude: body.latitude, longitude: body.longitude, accuracyM: body.accuracy_m },
      config,
    );

    if (body.action === "check_out") {
      if (!existing) {
        throw new DomainError("CONFLICT", `Task ${task.id} has no check-in yet: check in first`, {
          extra: { current_status: task.status },
        });
      }
      if (existing.checkedOutAt) return { task, visit: existing };
      const [visit] = await tx
        .update(siteVisits)
        .set({
          checkedOutAt: at,
          checkOutLatitude: body.latitude,
          checkOutLongitude: body.longitude,
          checkOutAccuracyM: body.accuracy_m,
          checkOutDistanceM: fence.distanceM,
        })
        .where(eq(siteVisits.taskId, task.id))
        .returning();
      await recordAudit(tx, {
        action: "visit.check_out",
        taskId: task.id,
        targetKind: "site_visit",
        targetId: task.id,
        details: {
          distance_m: fence.distanceM,
          accuracy_m: body.accuracy_m,
          ...(offline ? { captured_at: at.toISOString() } : {}),
        },
      });
      return { task, visit: visit! };
    }

    if (existing) return { task, visit: existing };
    if (!CHECK_IN_STATUSES.includes(task.status)) {
      throw new DomainError(
        "CONFLICT",
        `Cannot check in to task ${task.id}: its status is ${task.status} (allowed: ${CHECK_IN_STATUSES.join(", ")})`,
        { extra: { current_status: task.status } },
      );
    }
    if (!fence.within && !body.reason) {
      throw new DomainError(
        "VALIDATION_ERROR",
        fence.distanceM === null
          ? `Task ${task.id} has no coordinates to check the position against: give a reason to check in`
          : `You are ${Math.round(fence.distanceM)} m from the task's place (the geofence is ${Math.round(fence.geofenceM)} m): ` +
              "give a reason to check in from here",
        { field: "reason", extra: { distance_m: fence.distanceM, geofence_m: fence.geofenceM } },
      );
    }
    const events: string[] = [];
    if (task.status === "paid") {
      const r = await applyTransition(task.id, "dispatch", { changes: () => ({ dispatchedAt: at }) }, tx);
      events.push(r.eventId);
      task = r.task;
    }
    if (task.status === "dispatched") {
      const r = await applyTransition(task.id, "arrive", { changes: () => ({ onSiteAt: at }) }, tx);
      events.push(r.eventId);
      task = r.task;
    }
    moved = events.length > 0;
    const [visit] = await tx
      .insert(siteVisits)
      .values({
        taskId: task.id,
        staffId,
        checkedInAt: at,
        checkInReceivedAt: now,
        checkInOffline: offline,
        checkInLatitude: body.latitude,
        checkInLongitude: body.longitude,
        checkInAccuracyM: body.accuracy_m,
        checkInDistanceM: fence.distanceM,
        withinGeofence: fence.within,
        reason: fence.within ? null : (body.reason ?? null),
      })
      .returning();
    await recordAudit(tx, {
      action: "visit.check_in",
      taskId: task.id,
      targetKind: "site_visit",
      targetId: task.id,
      details: {
        distance_m: fence.distanceM,
        geofence_m: fence.geofenceM,
        accuracy_m: body.accuracy_m,
        within_geofence: fence.within,
        ...(offline ? { captured_at: at.toISOString() } : {}),
        event_ids: events,
      },
    });
    return { task, visit: visit! };
  });
  if (moved) eventsCommitted();
  return result;
}
