/**
 * The outbox dispatcher: turns task events not yet dispatched into work rows, in one
 * transaction with marking them dispatched (architecture.md "Data flows one way"):
 *
 * - one `deliveries` row per active webhook of the event's API key that subscribed to
 *   the event type (billing events without a key: the key of their client account);
 * - one `callback` delivery for `task.completed` when the task has a `callback_url`;
 * - the requester's e-mail for the event (lib/mail/compose-task-email.ts; none in sandbox).
 *
 * Sandbox tasks' events are delivered to webhooks and callbacks (so integrations can be
 * tested) but never e-mailed. Events are claimed with `FOR UPDATE SKIP LOCKED`, so
 * concurrent dispatchers split the work, and unique keys (`deliveries` per event and
 * destination, `emails.dedupe_key`) make a re-run harmless. Selection is by the
 * `dispatched_at is null` flag, not a `seq` cursor, because a lower seq can commit after a
 * higher one.
 */
import { and, asc, inArray, isNull } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { TASK_EVENT_TYPES } from "../db/schema/enums.js";
import {
  clientAccounts,
  deliveries,
  emails,
  type NewDelivery,
  type NewEmail,
  proofFiles,
  type Task,
  taskEvents,
  tasks,
  webhooks,
} from "../db/schema/index.js";
import { prefixedId } from "../ids.js";
import { composeTaskEmail, type ProofFileSummary } from "../mail/compose-task-email.js";
import { callbackBody, webhookBody } from "../webhooks/payloads.js";

/** Counts of one dispatch run. */
export interface DispatchResult {
  events: number;
  deliveries: number;
  emails: number;
}

const isTaskEvent = (type: string) => (TASK_EVENT_TYPES as readonly string[]).includes(type);

/**
 * Dispatches at most `limit` (default 200) undispatched events, oldest first.
 * Call repeatedly until `events` is 0 to drain.
 */
export async function dispatchEvents(options: { limit?: number; now?: Date } = {}): Promise<DispatchResult> {
  const db = await getDb();
  const now = options.now ?? new Date();
  return db.transaction(async (tx) => {
    const events = await tx
      .select()
      .from(taskEvents)
      .where(isNull(taskEvents.dispatchedAt))
      .orderBy(asc(taskEvents.seq))
      .limit(options.limit ?? 200)
      .for("update", { skipLocked: true });
    if (events.length === 0) return { events: 0, deliveries: 0, emails: 0 };

    const taskIds = [...new Set(events.flatMap((e) => (e.taskId ? [e.taskId] : [])))];
    const taskRows = taskIds.length ? await tx.select().from(tasks).where(inArray(tasks.id, taskIds)) : [];
    const taskById = new Map<string, Task>(taskRows.map((t) => [t.id, t]));

    const completedIds = events.filter((e) => e.type === "task.completed" && e.taskId).map((e) => e.taskId!);
    const fileRows = completedIds.length
      ? await tx
          .select({
            id: proofFiles.id,
            taskId: proofFiles.taskId,
            filename: proofFiles.filename,
            mimeType: proofFiles.mimeType,
            sizeBytes: proofFiles.sizeBytes,
          })
          .from(proofFiles)
          .where(inArray(proofFiles.taskId, completedIds))
          .orderBy(asc(proofFiles.createdAt), asc(proofFiles.id))
      : [];
    const filesByTask = new Map<string, ProofFileSummary[]>();
    for (const f of fileRows) filesByTask.set(f.taskId, [...(filesByTask.get(f.taskId) ?? []), f]);

    // Billing events may name only an account: its registering key receives them.
    const accountIds = [...new Set(events.flatMap((e) => (!e.apiKeyId && e.accountId ? [e.accountId] : [])))];
    const accountKey = new Map<string, string>();
    if (accountIds.length) {
      const rows = await tx
        .select({ id: clientAccounts.id, apiKeyId: clientAccounts.apiKeyId })
        .from(clientAccounts)
        .where(inArray(clientAccounts.id, accountIds));
      for (const r of rows) if (r.apiKeyId) accountKey.set(r.id, r.apiKeyId);
    }
    const keyOf = (e: (typeof events)[number]) =>
      e.apiKeyId ?? (e.accountId ? accountKey.get(e.accountId) : undefined);
    const keyIds = [...new Set(events.flatMap((e) => keyOf(e) ?? []))];
    const hooks = keyIds.length
      ? await tx
          .select({
            id: webhooks.id,
            apiKeyId: webhooks.apiKeyId,
            url: webhooks.url,
            events: webhooks.events,
          })
          .from(webhooks)
          .where(and(inArray(webhooks.apiKeyId, keyIds), isNull(webhooks.deletedAt)))
      : [];

    const newDeliveries: NewDelivery[] = [];
    const newEmails: NewEmail[] = [];
    for (const event of events) {
      const task = event.taskId ? taskById.get(event.taskId) : undefined;
      const keyId = keyOf(event);
      for (const hook of hooks) {
        if (hook.apiKeyId !== keyId || !hook.events.includes(event.type)) continue;
        newDeliveries.push({
          id: prefixedId("dlv"),
          eventId: event.id,
          webhookId: hook.id,
          kind: "webhook",
          url: hook.url,
          taskId: event.taskId,
          event: event.type,
          payload: webhookBody(event),
          nextAttemptAt: now,
        });
      }
      if (!task || !isTaskEvent(event.type)) continue;
      const files = filesByTask.get(task.id) ?? [];
      if (event.type === "task.completed" && task.callbackUrl) {
        newDeliveries.push({
          id: prefixedId("dlv"),
          eventId: event.id,
          webhookId: null,
          kind: "callback",
          url: task.callbackUrl,
          taskId: task.id,
          event: event.type,
          payload: callbackBody(event, task, files.length),
          nextAttemptAt: now,
        });
      }
      const email = composeTaskEmail(event, task, files);
      if (email) newEmails.push({ ...email, nextAttemptAt: now });
    }
    if (newDeliveries.length) await tx.insert(deliveries).values(newDeliveries).onConflictDoNothing();
    if (newEmails.length) await tx.insert(emails).values(newEmails).onConflictDoNothing();
    await tx
      .update(taskEvents)
      .set({ dispatchedAt: now })
      .where(
        inArray(
          taskEvents.id,
          events.map((e) => e.id),
        ),
      );
    return { events: events.length, deliveries: newDeliveries.length, emails: newEmails.length };
  });
}
