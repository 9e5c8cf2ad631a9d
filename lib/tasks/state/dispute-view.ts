/**
 * The dispute of a task as its owner sees it (issue 27): `dispute` of the status view
 * (lib/tasks/task-view.ts), the latest dispute of the task, open or resolved.
 */
import { desc, eq } from "drizzle-orm";
import { getDb } from "../../db/client.js";
import { type TaskDispute, taskDisputes } from "../../db/schema/index.js";

/** The summary of `dispute` the task's owner sees (`dispute` of the status view). */
export function disputeSummary(dispute: TaskDispute): Record<string, unknown> {
  return {
    dispute_id: dispute.id,
    status: dispute.status,
    reason: dispute.reason,
    opened_at: dispute.openedAt.toISOString(),
    ...(dispute.status === "resolved"
      ? {
          resolution: dispute.resolution,
          resolution_reason: dispute.resolutionReason,
          refund_amount_cad: dispute.refundAmountCad,
          follow_up_task_id: dispute.followUpTaskId,
          resolved_at: dispute.resolvedAt?.toISOString(),
        }
      : {}),
  };
}

/** The latest dispute of task `taskId`, or undefined. */
export async function latestDispute(taskId: string): Promise<TaskDispute | undefined> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(taskDisputes)
    .where(eq(taskDisputes.taskId, taskId))
    .orderBy(desc(taskDisputes.openedAt), desc(taskDisputes.id))
    .limit(1);
  return row;
}
