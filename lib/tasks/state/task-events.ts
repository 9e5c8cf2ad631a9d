/**
 * The one way a task event row is built (issue 46 item 2): `taskEventRow` gives every event of a
 * task its common members (task id, status, service, sandbox) and checks the payload against the
 * event registry (lib/db/schema/event-registry.ts) outside the production profile. The
 * transitions (./apply-transition.ts), the notices that change no status (`task.assigned`,
 * `task.at_risk`), the events of issue 27 (`task.disputed`, `task.dispute_resolved`,
 * `task.sla_credited`, `task.sla_missed`, through `emitTaskEvent`) and the first events of a new
 * task all build their rows here; `insertOutboxEvent` writes any event (billing ones too) and
 * checks its payload the same way. Rows are written in the transaction of the change they report,
 * so webhooks, the stream and e-mails see exactly what committed.
 */
import { productionProfile } from "../../config.js";
import type { Tx } from "../../db/client.js";
import type { TaskStatus } from "../../db/schema/enums.js";
import { type EventType, eventPayloadProblems, type TaskEventType } from "../../db/schema/event-registry.js";
import { type NewTaskEvent, type Task, taskEvents } from "../../db/schema/index.js";
import { prefixedId } from "../../ids.js";

/** The columns of a task an event row reads. */
export type EventTask = Pick<Task, "id" | "status" | "apiKeyId" | "serviceType" | "sandbox">;

/**
 * Checks `payload` against the registry's schema of event `type`, except in the production
 * profile (where emission never fails on it; tests and development runs do).
 * @throws Error naming the event type and each problem (`path: message`)
 */
export function assertEventPayload(type: EventType, payload: unknown): void {
  if (productionProfile().active) return;
  const problems = eventPayloadProblems(type, payload);
  if (problems.length > 0) {
    throw new Error(
      `The payload of ${type} breaks its schema (lib/db/schema/event-registry.ts): ${problems.join("; ")}`,
    );
  }
}

/**
 * The outbox row of event `type` of `task`, with a fresh id (`evt_…`): the payload is the common
 * members `{ task_id, status, service_type, sandbox }` (status: the task's current one) overridden
 * and completed by `payload` (a transition passes `status` and `previous_status`).
 * `taskStatus`: the status the event records in the history (a transition's new status, a notice's
 * current one), or null for an event outside the history.
 * @throws Error when the payload breaks the registry's schema (outside production; `assertEventPayload`)
 */
export function taskEventRow(
  task: EventTask,
  type: TaskEventType,
  payload: Record<string, unknown>,
  options: { taskStatus: TaskStatus | null; now: Date },
): NewTaskEvent & { id: string } {
  const data = {
    task_id: task.id,
    status: task.status,
    service_type: task.serviceType,
    sandbox: task.sandbox,
    ...payload,
  };
  assertEventPayload(type, data);
  return {
    id: prefixedId("evt"),
    taskId: task.id,
    type,
    taskStatus: options.taskStatus,
    apiKeyId: task.apiKeyId,
    payload: data,
    createdAt: options.now,
  };
}

/**
 * The row of a notice: an event that changes no status but is part of the history (`task.assigned`,
 * `task.at_risk`): `status`, `previous_status` and `task_status` are all the current status.
 * @throws Error when the payload breaks the registry's schema (outside production)
 */
export function noticeEventRow(
  task: EventTask,
  type: TaskEventType,
  extra: Record<string, unknown>,
  now: Date,
): NewTaskEvent & { id: string } {
  return taskEventRow(
    task,
    type,
    { previous_status: task.status, ...extra },
    { taskStatus: task.status, now },
  );
}

/**
 * Writes event `type` of `task` in `tx` that changes no status and stays out of the history
 * (`task_status` null; issue 27's events) with the common members and `payload`; returns its id.
 * The caller wakes the outbox after commit (`eventsCommitted()` of lib/db/after-events.ts).
 * @throws Error when the payload breaks the registry's schema (outside production)
 */
export async function emitTaskEvent(
  tx: Tx,
  task: EventTask,
  type: TaskEventType,
  payload: Record<string, unknown>,
  now = new Date(),
): Promise<string> {
  const row = taskEventRow(task, type, payload, { taskStatus: null, now });
  await tx.insert(taskEvents).values(row);
  return row.id;
}

/**
 * Writes `event` to the `task_events` outbox in `tx` with a fresh id (`evt_…`) and `now` as its
 * time; returns the id. The billing events (lib/billing/events.ts) are written with it.
 * @throws Error when the payload breaks the registry's schema (outside production)
 */
export async function insertOutboxEvent(
  tx: Tx,
  event: Omit<NewTaskEvent, "id" | "createdAt">,
  now: Date,
): Promise<string> {
  assertEventPayload(event.type, event.payload);
  const id = prefixedId("evt");
  await tx.insert(taskEvents).values({ id, ...event, createdAt: now });
  return id;
}
