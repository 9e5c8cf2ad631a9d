/**
 * Applies one action of the transition table to a task, in one database transaction
 * with its event row (the outbox read by webhooks, callbacks, e-mails and the stream).
 * The row is locked (`SELECT … FOR UPDATE`) and its `version` checked, so two
 * concurrent changes of one task never both succeed. A change that ends the wait for
 * payment (pay, expire, cancel from an awaiting status) releases the task's USDC amount
 * in the same transaction (lib/tasks/state/amount-reservations.ts). `applyTransitionBatch`
 * does the same for many tasks in one transaction with set-based statements (the payment
 * checker). Each applied transition also writes its audit-log row (lib/db/audit.ts: `task.<action>`,
 * the current actor) in the same transaction.
 */
import { and, eq, getTableColumns, sql } from "drizzle-orm";
import { eventsCommitted } from "../../db/after-events.js";
import { type AuditRecord, recordAudit } from "../../db/audit.js";
import { bulkInsert, jsonList, recordset } from "../../db/bulk.js";
import { getDb, type Tx } from "../../db/client.js";
import type { TaskStatus } from "../../db/schema/enums.js";
import { type NewTaskEvent, type Task, taskEvents, tasks } from "../../db/schema/index.js";
import { DomainError } from "../../errors.js";
import { releaseAmounts, releasesAmount } from "./amount-reservations.js";
import { type EventTask, taskEventRow } from "./task-events.js";
import { allowedActions, findTransition, type TaskAction, type Transition } from "./transitions.js";

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
  /**
   * Checks the locked row before the transition table does (e.g. that a field staff member is the
   * task's assignee); throwing refuses the change.
   */
  guard?: (task: Task) => void;
}

/** Result: the updated row and the id of the event written. */
export interface TransitionResult {
  task: Task;
  eventId: string;
  from: TaskStatus;
}

/**
 * Loads a task, locked `FOR UPDATE` until `tx` ends when `lock` is set.
 * @throws DomainError NOT_FOUND (unknown task)
 */
export async function getTaskOrThrow(taskId: string, tx?: Tx, lock = false): Promise<Task> {
  const db = tx ?? (await getDb());
  const query = db.select().from(tasks).where(eq(tasks.id, taskId));
  const [task] = lock ? await query.for("update") : await query;
  if (!task) throw new DomainError("NOT_FOUND", `No task ${taskId}`, { field: "task_id" });
  return task;
}

function conflict(action: TaskAction, task: Task): DomainError {
  const allowed = allowedActions(task.status);
  return new DomainError(
    "CONFLICT",
    `Cannot ${action.replace("_", " ")} task ${task.id}: its status is ${task.status}` +
      (allowed.length ? ` (allowed: ${allowed.join(", ")})` : " (terminal)"),
    { extra: { current_status: task.status } },
  );
}

/** The event row of `transition` applied to `task` (the row before the change). */
function eventRow(
  task: EventTask,
  transition: Pick<Transition, "to" | "event">,
  extra: Record<string, unknown>,
  now: Date,
): NewTaskEvent & { id: string } {
  return taskEventRow(
    task,
    transition.event,
    { status: transition.to, previous_status: task.status, ...extra },
    { taskStatus: transition.to, now },
  );
}

/** The audit-log record of one applied transition. */
function auditOf(
  action: TaskAction,
  taskId: string,
  from: TaskStatus,
  to: TaskStatus,
  eventId: string,
): AuditRecord {
  return { action: `task.${action}`, taskId, details: { from, to, event_id: eventId } };
}

/**
 * Applies `action` to task `taskId` in its own transaction, or, when `tx` is given, inside
 * that transaction (as a savepoint: a failure undoes this transition only, and the caller
 * commits it with the rest of its work and then wakes the outbox: `eventsCommitted()` of
 * lib/db/after-events.ts, or `kickOutbox()` from a workflow).
 * @throws DomainError NOT_FOUND (unknown task), CONFLICT (action not allowed from the current status; `current_status` in the error)
 */
export async function applyTransition(
  taskId: string,
  action: TaskAction,
  options: TransitionOptions = {},
  tx?: Tx,
): Promise<TransitionResult> {
  const run = async (tx: Tx): Promise<TransitionResult> => {
    const task = await getTaskOrThrow(taskId, tx, true);
    options.guard?.(task);
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
    if (releasesAmount(task.status, transition.to)) await releaseAmounts(tx, [taskId], now);
    await options.after?.(updated, tx);
    const event = eventRow(task, transition, options.payload?.(updated) ?? {}, now);
    await tx.insert(taskEvents).values(event);
    await recordAudit(tx, auditOf(action, taskId, task.status, transition.to, event.id));
    return { task: updated, eventId: event.id, from: task.status };
  };
  if (tx) return tx.transaction(run);
  const result = await (await getDb()).transaction(run);
  eventsCommitted(); // webhooks, callbacks, e-mails of the committed event (the outbox registers)
  return result;
}

/** One task of a batch transition; callers extend it with what they need back. */
export interface BatchEntry {
  taskId: string;
}

/**
 * The columns a batch reads from each locked task: what the transition check and the
 * event row need, plus what payment changes are computed from. Reading whole rows (and
 * returning them from the update) was most of a batch's time on PGlite.
 */
const BATCH_COLUMNS = {
  id: tasks.id,
  status: tasks.status,
  version: tasks.version,
  apiKeyId: tasks.apiKeyId,
  serviceType: tasks.serviceType,
  sandbox: tasks.sandbox,
  urgency: tasks.urgency,
  priceCad: tasks.priceCad,
  counterOfferAmount: tasks.counterOfferAmount,
};

/** A locked task as a batch sees it (`BATCH_COLUMNS`). */
export type BatchTask = Pick<Task, keyof typeof BATCH_COLUMNS>;

/** Options of `applyTransitionBatch`. */
export interface BatchTransitionOptions<E extends BatchEntry> {
  /** Column changes for one locked task; every entry must set the same columns. */
  changes?: (task: BatchTask, entry: E) => TaskChanges;
  /** Extra members of the event payload, from the locked row and its changes. */
  payload?: (task: BatchTask, changes: TaskChanges, entry: E) => Record<string, unknown>;
  /**
   * Runs in the transaction after the locks and the transition checks, before any task is
   * updated, with the entries the table allows; returns those that go ahead (the others
   * are reported as `skipped`, e.g. a transfer another checker run recorded first).
   */
  claim?: (ready: { task: BatchTask; entry: E }[], tx: Tx) => Promise<E[]>;
  /**
   * Extra work in the same transaction once the tasks are updated and their events written,
   * with each applied entry and its changes (e.g. the USDC receipts of a payment batch).
   * Throwing rolls the whole batch back.
   */
  after?: (applied: { task: BatchTask; entry: E; changes: TaskChanges }[], tx: Tx) => Promise<void>;
}

/** What a batch did, entry by entry. */
export interface BatchTransitionResult<E extends BatchEntry> {
  /** Changed: the task, its status before and after, and the event written. */
  applied: { entry: E; taskId: string; from: TaskStatus; to: TaskStatus; eventId: string }[];
  /**
   * Not allowed: `currentStatus` null for an unknown task, else the status the table
   * refused the action from (for a task named twice, the status the first entry led to).
   */
  refused: { entry: E; currentStatus: TaskStatus | null }[];
  /** Allowed but dropped by `claim`. */
  skipped: E[];
}

/**
 * Applies `action` to many tasks in ONE transaction with the same guarantees as
 * `applyTransition`: rows locked (`FOR UPDATE`, in id order) and version-checked, each
 * change validated by the transition table, each applied change written with its event row.
 * Set-based: one locking select, one `UPDATE … FROM jsonb_to_recordset(…)`, one multi-row
 * event insert (lib/db/bulk.ts). Entries the table refuses are reported, not thrown, so one
 * stale task does not hold back the others. The outbox is kicked once after commit.
 * @throws the database's errors (nothing is written then); Error if a locked row's version moved.
 */
export async function applyTransitionBatch<E extends BatchEntry>(
  entries: readonly E[],
  action: TaskAction,
  options: BatchTransitionOptions<E> = {},
): Promise<BatchTransitionResult<E>> {
  const result: BatchTransitionResult<E> = { applied: [], refused: [], skipped: [] };
  if (entries.length === 0) return result;
  const db = await getDb();
  await db.transaction(async (tx) => {
    const byId = await lockTasks(tx, entries);
    const ready = checkTransitions(entries, action, byId, result);
    let going = ready;
    if (options.claim && ready.length) {
      const kept = new Set(
        await options.claim(
          ready.map(({ task, entry }) => ({ task, entry })),
          tx,
        ),
      );
      going = ready.filter((r) => kept.has(r.entry));
      result.skipped = ready.filter((r) => !kept.has(r.entry)).map((r) => r.entry);
    }
    if (going.length === 0) return;

    const now = new Date();
    const changes = going.map(({ task, entry }) => options.changes?.(task, entry) ?? {});
    await updateTasks(tx, going, changes, now);
    await releaseAmounts(
      tx,
      going
        .filter(({ task, transition }) => releasesAmount(task.status, transition.to))
        .map((g) => g.task.id),
      now,
    );
    const events = going.map(({ task, entry, transition }, i) => {
      const event = eventRow(task, transition, options.payload?.(task, changes[i]!, entry) ?? {}, now);
      result.applied.push({
        entry,
        taskId: task.id,
        from: task.status,
        to: transition.to,
        eventId: event.id,
      });
      return event;
    });
    await bulkInsert(tx, taskEvents, events);
    await recordAudit(tx, ...result.applied.map((a) => auditOf(action, a.taskId, a.from, a.to, a.eventId)));
    await options.after?.(
      going.map(({ task, entry }, i) => ({ task, entry, changes: changes[i]! })),
      tx,
    );
  });
  if (result.applied.length) eventsCommitted();
  return result;
}

/** One batch entry the transition table allows, with its locked task. */
interface ReadyEntry<E extends BatchEntry> {
  task: BatchTask;
  entry: E;
  transition: Transition;
}

/** Locks the tasks `entries` name (`FOR UPDATE`, in id order) and returns them by id. */
async function lockTasks(tx: Tx, entries: readonly BatchEntry[]): Promise<Map<string, BatchTask>> {
  const ids = [...new Set(entries.map((e) => e.taskId))].sort();
  const locked = await tx
    .select(BATCH_COLUMNS)
    .from(tasks)
    .where(sql`${tasks.id} in ${jsonList(ids)}`)
    .orderBy(tasks.id)
    .for("update");
  return new Map(locked.map((t) => [t.id, t]));
}

/**
 * The entries whose task `action` may leave its status from; the others go to `result.refused`.
 * A task named twice is judged from the status its first entry leads to.
 */
function checkTransitions<E extends BatchEntry>(
  entries: readonly E[],
  action: TaskAction,
  byId: Map<string, BatchTask>,
  result: BatchTransitionResult<E>,
): ReadyEntry<E>[] {
  const ready: ReadyEntry<E>[] = [];
  const claimed = new Map<string, TaskStatus>();
  for (const entry of entries) {
    const task = byId.get(entry.taskId);
    const transition = task && !claimed.has(task.id) ? findTransition(action, task.status) : undefined;
    if (!task || !transition) {
      result.refused.push({ entry, currentStatus: claimed.get(entry.taskId) ?? task?.status ?? null });
      continue;
    }
    claimed.set(task.id, transition.to);
    ready.push({ task, entry, transition });
  }
  return ready;
}

/**
 * Writes the new status and `changes[i]` of each of `going` in one `UPDATE … FROM
 * jsonb_to_recordset(…)`, checking each row's version.
 * @throws Error if a locked row's version moved
 */
async function updateTasks<E extends BatchEntry>(
  tx: Tx,
  going: ReadyEntry<E>[],
  changes: TaskChanges[],
  now: Date,
): Promise<void> {
  const rows = going.map(({ task, transition }, i) => ({
    ...changes[i],
    id: task.id,
    version: task.version,
    status: transition.to,
  }));
  const columns = getTableColumns(tasks) as Record<string, { name: string }>;
  const set: Record<string, unknown> = {};
  for (const key of Object.keys(rows[0]!)) {
    if (key === "id" || key === "version") continue;
    set[key] = sql`${sql.identifier("v")}.${sql.identifier(columns[key]!.name)}`;
  }
  const updated = await tx
    .update(tasks)
    .set({ ...set, version: sql`${tasks.version} + 1`, updatedAt: now })
    .from(recordset(tasks, rows, "v"))
    .where(and(eq(tasks.id, sql`v.id`), eq(tasks.version, sql`v.version`)))
    .returning({ id: tasks.id });
  if (updated.length !== going.length) {
    throw new Error(`applyTransitionBatch: ${going.length - updated.length} locked task(s) changed version`);
  }
}
