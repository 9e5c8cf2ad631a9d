/**
 * The deadline watch (api/cron/deadline-watch, every 5 minutes; issue 26 item 7;
 * docs/staff-and-audit.md "Deadline watch"): a paid or dispatched task not yet on site whose
 * execution deadline is near — less than a quarter of its window (payment → execution deadline)
 * left, or past — is flagged once: `at_risk_at` is set and a `task.at_risk` event (webhooks, the
 * stream) and an audit row (`task.at_risk`, actor `system` / `deadline-watch`) are written in the
 * same transaction. A flagged task is never flagged again (`at_risk_at is null` is part of the
 * update's condition), so overlapping or repeated runs flag it once. Sandbox tasks (simulated,
 * advancing per poll) are not watched.
 */
import { and, eq, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import { eventsCommitted } from "../db/after-events.js";
import { recordAudit } from "../db/audit.js";
import { bulkInsert, jsonList } from "../db/bulk.js";
import { getDb } from "../db/client.js";
import { taskEvents, tasks } from "../db/schema/index.js";
import { AT_RISK_WINDOW_SHARE } from "../tasks/state/sla.js";
import { noticeEventRow } from "../tasks/state/task-events.js";

/**
 * Flags the tasks at risk at `now` (at most `batch` a run, closest deadline first).
 * @returns how many this run flagged
 */
export async function flagTasksAtRisk(now = new Date(), batch = 500): Promise<{ flagged: number }> {
  const db = await getDb();
  const at = sql`${now.toISOString()}::timestamptz`;
  const flagged = await db.transaction(async (tx) => {
    const due = await tx
      .select({ id: tasks.id })
      .from(tasks)
      .where(
        and(
          inArray(tasks.status, ["paid", "dispatched"]),
          eq(tasks.sandbox, false),
          isNull(tasks.atRiskAt),
          isNotNull(tasks.paidAt),
          sql`${tasks.executionDeadline} - (${tasks.executionDeadline} - ${tasks.paidAt}) * ${AT_RISK_WINDOW_SHARE} < ${at}`,
        ),
      )
      .orderBy(tasks.executionDeadline)
      .limit(batch)
      .for("update", { skipLocked: true });
    if (due.length === 0) return [];
    const rows = await tx
      .update(tasks)
      .set({ atRiskAt: now, version: sql`${tasks.version} + 1`, updatedAt: now })
      .where(and(sql`${tasks.id} in ${jsonList(due.map((d) => d.id))}`, isNull(tasks.atRiskAt)))
      .returning();
    const events = rows.map((t) =>
      noticeEventRow(
        t,
        "task.at_risk",
        {
          execution_deadline: t.executionDeadline.toISOString(),
          minutes_left: Math.round((t.executionDeadline.getTime() - now.getTime()) / 60_000),
          assigned: t.assignedStaffId !== null,
        },
        now,
      ),
    );
    await bulkInsert(tx, taskEvents, events);
    await recordAudit(
      tx,
      ...events.map((e) => ({
        action: "task.at_risk" as const,
        taskId: e.taskId,
        details: { status: e.taskStatus, event_id: e.id },
      })),
    );
    return rows;
  });
  if (flagged.length) eventsCommitted();
  return { flagged: flagged.length };
}
