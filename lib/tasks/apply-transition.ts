/**
 * Applies one action of the transition table to a task, in one database transaction
 * with its event row (the outbox read by webhooks, callbacks, e-mails and the stream).
 * The row is locked (`SELECT … FOR UPDATE`) and its `version` checked, so two
 * concurrent changes of one task never both succeed. Unique-amount collisions of the
 * payment index are retried.
 */
import { and, eq, sql } from "drizzle-orm";
import { getDb, type Tx } from "../db/client.js";
import type { TaskStatus } from "../db/schema/enums.js";
import { type Task, taskEvents, tasks } from "../db/schema/index.js";
import { kickOutbox } from "../events/kick-outbox.js";
import { ApiError } from "../http/errors.js";
import { prefixedId } from "../ids.js";
import { allowedActions, findTransition, type TaskAction } from "./transitions.js";

/** Column changes that go with a transition; may be computed from the locked row. */
export type TaskChanges = Partial<typeof tasks.$inferInsert>;

/** Options of `applyTransition`. */
export interface TransitionOptions {
  /** Changes to write with the status, computed inside the transaction. */
  changes?: (task: Task, tx: Tx) => TaskChanges | Promise<TaskChanges>;
  /** Extra members of the event payload. */
  payload?: (task: Task) => Record<string, unknown>;
  /** Extra work in the same transaction after the update (e.g. proof files, ledger rows). */
  after?: (task: Task, tx: Tx) => Promise<void>;
}

/** Result: the updated row and the id of the event written. */
export interface TransitionResult {
  task: Task;
  eventId: string;
  from: TaskStatus;
}

/** Loads a task or throws 404. */
export async function getTaskOrThrow(taskId: string, tx?: Tx): Promise<Task> {
  const db = tx ?? (await getDb());
  const [task] = await db.select().from(tasks).where(eq(tasks.id, taskId));
  if (!task) throw new ApiError("NOT_FOUND", `No task ${taskId}`, { field: "task_id" });
  return task;
}

function conflict(action: TaskAction, task: Task): ApiError {
  const allowed = allowedActions(task.status);
  return new ApiError(
    "CONFLICT",
    `Cannot ${action.replace("_", " ")} task ${task.id}: its status is ${task.status}` +
      (allowed.length ? ` (allowed: ${allowed.join(", ")})` : " (terminal)"),
    { extra: { current_status: task.status } },
  );
}

const isUniqueViolation = (error: unknown): boolean => {
  for (let e: unknown = error, i = 0; e && i < 5; i++) {
    if ((e as { code?: string }).code === "23505") return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
};

/**
 * Applies `action` to task `taskId`.
 * @throws ApiError NOT_FOUND (unknown task), CONFLICT (action not allowed from the current status; `current_status` in the error)
 */
export async function applyTransition(
  taskId: string,
  action: TaskAction,
  options: TransitionOptions = {},
): Promise<TransitionResult> {
  const db = await getDb();
  for (let attempt = 0; ; attempt++) {
    try {
      const result = await db.transaction(async (tx) => {
        const [task] = await tx.select().from(tasks).where(eq(tasks.id, taskId)).for("update");
        if (!task) throw new ApiError("NOT_FOUND", `No task ${taskId}`, { field: "task_id" });
        const transition = findTransition(action, task.status);
        if (!transition) throw conflict(action, task);
        const changes = (await options.changes?.(task, tx)) ?? {};
        const now = new Date();
        const [updated] = await tx
          .update(tasks)
          .set({ ...changes, status: transition.to, version: sql`${tasks.version} + 1`, updatedAt: now })
          .where(and(eq(tasks.id, taskId), eq(tasks.version, task.version)))
          .returning();
        if (!updated) throw conflict(action, task);
        await options.after?.(updated, tx);
        const eventId = prefixedId("evt");
        await tx.insert(taskEvents).values({
          id: eventId,
          taskId,
          type: transition.event,
          taskStatus: transition.to,
          apiKeyId: task.apiKeyId,
          payload: {
            task_id: taskId,
            status: transition.to,
            previous_status: task.status,
            service_type: task.serviceType,
            sandbox: task.sandbox,
            ...(options.payload?.(updated) ?? {}),
          },
          createdAt: now,
        });
        return { task: updated, eventId, from: task.status };
      });
      kickOutbox(); // webhooks, callbacks, e-mails of the committed event (lib/events)
      return result;
    } catch (error) {
      if (attempt < 4 && isUniqueViolation(error)) continue;
      throw error;
    }
  }
}
