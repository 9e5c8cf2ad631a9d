/**
 * Task events that change no status (issue 27: `task.disputed`, `task.dispute_resolved`,
 * `task.sla_credited`, `task.sla_missed`): written to the `task_events` outbox in the transaction
 * of the change they report, like a transition's event (./apply-transition.ts), so webhooks, the
 * stream and e-mails see exactly what committed. Their `task_status` is null (the history's
 * statuses are the transitions').
 */
import type { Tx } from "../../db/client.js";
import type { TaskEventType } from "../../db/schema/enums.js";
import { type NewTaskEvent, type Task, taskEvents } from "../../db/schema/index.js";
import { prefixedId } from "../../ids.js";

/**
 * Writes event `type` of `task` in `tx` with the common members (task id, status, service,
 * sandbox) and `payload`; returns its id. The caller wakes the outbox after commit
 * (`eventsCommitted()` of lib/db/after-events.ts).
 */
export async function emitTaskEvent(
  tx: Tx,
  task: Pick<Task, "id" | "status" | "apiKeyId" | "serviceType" | "sandbox">,
  type: TaskEventType,
  payload: Record<string, unknown>,
  now = new Date(),
): Promise<string> {
  return insertOutboxEvent(
    tx,
    {
      taskId: task.id,
      type,
      taskStatus: null,
      apiKeyId: task.apiKeyId,
      payload: {
        task_id: task.id,
        status: task.status,
        service_type: task.serviceType,
        sandbox: task.sandbox,
        ...payload,
      },
    },
    now,
  );
}

/**
 * Writes `event` to the `task_events` outbox in `tx` with a fresh id (`evt_…`) and `now` as its
 * time; returns the id. The events of a task above and the billing events (lib/billing/events.ts)
 * are written with it.
 */
export async function insertOutboxEvent(
  tx: Tx,
  event: Omit<NewTaskEvent, "id" | "createdAt">,
  now: Date,
): Promise<string> {
  const id = prefixedId("evt");
  await tx.insert(taskEvents).values({ id, ...event, createdAt: now });
  return id;
}
