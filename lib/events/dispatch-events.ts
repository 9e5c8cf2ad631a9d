/**
 * The outbox dispatcher: turns task events not yet dispatched into work rows, in one
 * transaction with marking them dispatched (architecture.md "Data flows one way"):
 *
 * - one `deliveries` row per active webhook of the event's API key that subscribed to
 *   the event type (billing events without a key: the key of their client account);
 * - one `callback` delivery for `task.completed` when the task has a `callback_url`;
 * - the requester's e-mail for the event (lib/mail/compose-task-email.ts; none in sandbox);
 * - the staff push messages of assignments and tasks at risk (lib/push/queue-pushes.ts).
 *
 * Sandbox tasks' events are delivered to webhooks and callbacks (so integrations can be
 * tested) but never e-mailed. Events are claimed with `FOR UPDATE SKIP LOCKED`, so
 * concurrent dispatchers split the work, and unique keys (`deliveries` per event and
 * destination, `emails.dedupe_key`) make a re-run harmless. Selection is by the
 * `dispatched_at is null` flag, not a `seq` cursor, because a lower seq can commit after a
 * higher one.
 */
import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import { getDb, type Tx } from "../db/client.js";
import { TASK_EVENT_TYPES } from "../db/schema/event-registry.js";
import {
  apiKeys,
  clientAccounts,
  deliveries,
  emails,
  type NewDelivery,
  type NewEmail,
  proofFiles,
  type Task,
  type TaskEvent,
  taskEvents,
  tasks,
  webhooks,
} from "../db/schema/index.js";
import { prefixedId } from "../ids.js";
import { describeError } from "../log-error.js";
import {
  awaitsUsdcPayment,
  composeTaskEmail,
  PAYMENT_EMAIL_EVENTS,
  type ProofFileSummary,
} from "../mail/compose-task-email.js";
import { applyUnverifiedRecipientRule } from "../mail/unverified-recipients.js";
import { queueEventPushes } from "../push/queue-pushes.js";
import { callbackBody, webhookBody } from "../webhooks/payloads.js";

/** Counts of one dispatch run. */
export interface DispatchResult {
  events: number;
  deliveries: number;
  emails: number;
  /** Staff push messages queued. */
  pushes: number;
}

const isTaskEvent = (type: string) => (TASK_EVENT_TYPES as readonly string[]).includes(type);

/** An active webhook, as the dispatcher matches it to events. */
interface Hook {
  id: string;
  apiKeyId: string;
  url: string;
  events: string[];
}

/** What the events of one run refer to, read in the dispatch transaction. */
interface DispatchContext {
  taskById: Map<string, Task>;
  /** Proof files of the tasks whose `task.completed` is in the run. */
  filesByTask: Map<string, ProofFileSummary[]>;
  /** The API key whose webhooks receive an event (its own, else its account's). */
  keyOf(event: TaskEvent): string | undefined;
  hooks: Hook[];
  /** The pay page URL of each task whose payment e-mail is in the run (lib/payments/pay-link.ts). */
  payUrlByTask: Map<string, string>;
}

/** Claims at most `limit` undispatched events, oldest first, skipping those another run holds. */
function claimEvents(tx: Tx, limit: number): Promise<TaskEvent[]> {
  return tx
    .select()
    .from(taskEvents)
    .where(isNull(taskEvents.dispatchedAt))
    .orderBy(asc(taskEvents.seq))
    .limit(limit)
    .for("update", { skipLocked: true });
}

/** The tasks of `events`, by id. */
async function tasksOf(tx: Tx, events: TaskEvent[]): Promise<Map<string, Task>> {
  const taskIds = [...new Set(events.flatMap((e) => (e.taskId ? [e.taskId] : [])))];
  const rows = taskIds.length ? await tx.select().from(tasks).where(inArray(tasks.id, taskIds)) : [];
  return new Map(rows.map((t) => [t.id, t]));
}

/** The proof files (no content) of the tasks completed by `events`, in upload order, by task id. */
async function completedProofFiles(tx: Tx, events: TaskEvent[]): Promise<Map<string, ProofFileSummary[]>> {
  const completedIds = events.filter((e) => e.type === "task.completed" && e.taskId).map((e) => e.taskId!);
  const rows = completedIds.length
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
        .orderBy(asc(proofFiles.createdAt), asc(proofFiles.position), asc(proofFiles.id))
    : [];
  const filesByTask = new Map<string, ProofFileSummary[]>();
  for (const f of rows) filesByTask.set(f.taskId, [...(filesByTask.get(f.taskId) ?? []), f]);
  return filesByTask;
}

/**
 * The key each event goes to: its own `api_key_id`, else (billing events that name only an
 * account) the key that registered the account, and only while that key is linked to it: a key
 * that merely opened the account (anyone can type anyone's e-mail as a key's contact) never
 * receives the account's events (issue 25, tenant isolation).
 */
async function eventKeys(tx: Tx, events: TaskEvent[]): Promise<(event: TaskEvent) => string | undefined> {
  const accountIds = [...new Set(events.flatMap((e) => (!e.apiKeyId && e.accountId ? [e.accountId] : [])))];
  const accountKey = new Map<string, string>();
  if (accountIds.length) {
    const rows = await tx
      .select({ id: clientAccounts.id, apiKeyId: apiKeys.id })
      .from(clientAccounts)
      .innerJoin(
        apiKeys,
        and(eq(apiKeys.id, clientAccounts.apiKeyId), eq(apiKeys.accountId, clientAccounts.id)),
      )
      .where(inArray(clientAccounts.id, accountIds));
    for (const r of rows) accountKey.set(r.id, r.apiKeyId);
  }
  return (e) => e.apiKeyId ?? (e.accountId ? accountKey.get(e.accountId) : undefined);
}

/** The active (not deleted) webhooks of keys `keyIds`. */
function activeWebhooks(tx: Tx, keyIds: string[]): Promise<Hook[]> {
  if (keyIds.length === 0) return Promise.resolve([]);
  return tx
    .select({ id: webhooks.id, apiKeyId: webhooks.apiKeyId, url: webhooks.url, events: webhooks.events })
    .from(webhooks)
    .where(and(inArray(webhooks.apiKeyId, keyIds), isNull(webhooks.deletedAt)));
}

/** Reads what `events` refer to: tasks, proof files, receiving keys and their webhooks. */
async function loadContext(tx: Tx, events: TaskEvent[]): Promise<DispatchContext> {
  const taskById = await tasksOf(tx, events);
  const filesByTask = await completedProofFiles(tx, events);
  const keyOf = await eventKeys(tx, events);
  const hooks = await activeWebhooks(tx, [...new Set(events.flatMap((e) => keyOf(e) ?? []))]);
  const payUrlByTask = await payPageUrls(events, taskById);
  return { taskById, filesByTask, keyOf, hooks, payUrlByTask };
}

/**
 * The pay page URL (with a fresh pay token) of each task whose event in `events` e-mails payment
 * instructions or a counter-offer while the task awaits payment (lib/mail/compose-task-email.ts).
 * A token that cannot be signed (no JWT_SECRET in production) leaves the e-mail without the link,
 * never the events undispatched.
 */
async function payPageUrls(events: TaskEvent[], taskById: Map<string, Task>): Promise<Map<string, string>> {
  const urls = new Map<string, string>();
  const tasks = events.flatMap((e) => {
    const task = e.taskId ? taskById.get(e.taskId) : undefined;
    return task && !task.sandbox && PAYMENT_EMAIL_EVENTS.has(e.type) && awaitsUsdcPayment(task) ? [task] : [];
  });
  if (tasks.length === 0) return urls;
  const { payPageUrl } = await import("../payments/pay-link.js");
  for (const task of tasks) {
    if (urls.has(task.id)) continue; // two payment e-mails of one task in a run share a link
    try {
      urls.set(task.id, (await payPageUrl(task)).url);
    } catch (error) {
      console.error(`pay page link of ${task.id} left out of its e-mail: ${describeError(error)}`);
    }
  }
  return urls;
}

/**
 * The work rows of `events` (see the module comment), due at `now`: webhook deliveries,
 * `task.completed` callbacks and the requester's e-mails. Reads and writes nothing.
 */
function workOf(
  events: TaskEvent[],
  ctx: DispatchContext,
  now: Date,
): { deliveries: NewDelivery[]; emails: NewEmail[] } {
  const newDeliveries: NewDelivery[] = [];
  const newEmails: NewEmail[] = [];
  for (const event of events) {
    const task = event.taskId ? ctx.taskById.get(event.taskId) : undefined;
    const keyId = ctx.keyOf(event);
    for (const hook of ctx.hooks) {
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
    const files = ctx.filesByTask.get(task.id) ?? [];
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
    const email = composeTaskEmail(event, task, files, ctx.payUrlByTask.get(task.id));
    if (email) newEmails.push({ ...email, nextAttemptAt: now });
  }
  return { deliveries: newDeliveries, emails: newEmails };
}

/**
 * Dispatches at most `limit` (default 200) undispatched events, oldest first: claims them,
 * reads what they refer to, writes their deliveries, e-mails (e-mails to unverified
 * addresses guarded by lib/mail/unverified-recipients.ts) and staff push messages, and marks them dispatched, all in
 * one transaction. Call repeatedly until `events` is 0 to drain.
 * @param options.now the time the work rows are first due (default: now)
 * @returns counts of events dispatched and of deliveries, e-mails and push messages created
 * @throws the database's errors (nothing is written then)
 */
export async function dispatchEvents(options: { limit?: number; now?: Date } = {}): Promise<DispatchResult> {
  const db = await getDb();
  const now = options.now ?? new Date();
  return db.transaction(async (tx) => {
    const events = await claimEvents(tx, options.limit ?? 200);
    if (events.length === 0) return { events: 0, deliveries: 0, emails: 0, pushes: 0 };
    const ctx = await loadContext(tx, events);
    const work = workOf(events, ctx, now);
    if (work.deliveries.length) await tx.insert(deliveries).values(work.deliveries).onConflictDoNothing();
    if (work.emails.length) {
      const guarded = await applyUnverifiedRecipientRule(tx, work.emails, (id) => ctx.taskById.get(id));
      await tx.insert(emails).values(guarded).onConflictDoNothing();
    }
    const pushes = await queueEventPushes(tx, events, ctx.taskById, now);
    const ids = events.map((e) => e.id);
    await tx.update(taskEvents).set({ dispatchedAt: now }).where(inArray(taskEvents.id, ids));
    return { events: events.length, deliveries: work.deliveries.length, emails: work.emails.length, pushes };
  });
}
