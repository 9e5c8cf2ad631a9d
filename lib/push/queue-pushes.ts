/**
 * Queueing staff push messages (issue 44 item 6; docs/notifications.md "Push notifications"):
 * rows of `push_messages`, one per live subscription of the person told, written in the
 * transaction that dispatches the task events they report (lib/events/dispatch-events.ts) or that
 * records a review wait (`queueReviewWaitPushes`). Events are only ever dispatched once their
 * change committed, so a rolled-back change pushes nothing; sending is the outbox pass's
 * (lib/push/send-pushes.ts), so a failed push never fails a request.
 *
 * Who is told:
 * - `task.assigned` to a person → that person (`task_assigned`), unless the task was given to
 *   someone else since (the event's `assigned_at` no longer the task's) or is sandbox;
 * - `task.at_risk` → the task's assignee, if any (`task_at_risk`);
 * - a task `received` for longer than PUSH_REVIEW_WAIT_MINUTES → every active staff member holding
 *   `tasks.review` (`review_waiting`), once per task (`push_review_notices`).
 * A live subscription is one whose session is neither revoked nor expired, of an active member.
 */
import { and, asc, eq, gt, inArray, isNull, lt, notExists, sql } from "drizzle-orm";
import { getConfig } from "../config.js";
import { eventsCommitted } from "../db/after-events.js";
import { getDb, type Tx } from "../db/client.js";
import type { Role } from "../db/schema/enums.js";
import {
  type NewPushMessage,
  type PushKind,
  pushMessages,
  pushReviewNotices,
  pushSubscriptions,
  staffMembers,
  staffSessions,
  type Task,
  type TaskEvent,
  tasks,
} from "../db/schema/index.js";
import { prefixedId } from "../ids.js";
import { rolesHolding } from "../permissions.js";
import { type PushFacts, pushPayload } from "./messages.js";

/** A live subscription with its owner. */
interface LiveSubscription {
  id: string;
  staffId: string;
  lang: "fr" | "en";
}

/** The live subscriptions of `staffIds`, or of every active member with one of `roles`. */
async function liveSubscriptions(
  tx: Tx,
  who: { staffIds: string[] } | { roles: Role[] },
  now: Date,
): Promise<LiveSubscription[]> {
  const whom =
    "staffIds" in who
      ? inArray(pushSubscriptions.staffId, who.staffIds)
      : inArray(staffMembers.role, who.roles);
  if ("staffIds" in who ? who.staffIds.length === 0 : who.roles.length === 0) return [];
  return tx
    .select({ id: pushSubscriptions.id, staffId: pushSubscriptions.staffId, lang: pushSubscriptions.lang })
    .from(pushSubscriptions)
    .innerJoin(staffSessions, eq(staffSessions.id, pushSubscriptions.sessionId))
    .innerJoin(staffMembers, eq(staffMembers.id, pushSubscriptions.staffId))
    .where(
      and(
        whom,
        eq(staffMembers.status, "active"),
        isNull(staffSessions.revokedAt),
        gt(staffSessions.expiresAt, now),
      ),
    )
    .orderBy(asc(pushSubscriptions.createdAt));
}

/** The message rows of `facts` for each of `subs`, keyed by `key` (an event or task id), due at `due`. */
function messagesFor(facts: PushFacts, key: string, subs: LiveSubscription[], due: Date): NewPushMessage[] {
  return subs.map((s) => ({
    id: prefixedId("psh"),
    subscriptionId: s.id,
    kind: facts.kind,
    taskId: facts.taskId,
    dedupeKey: `${facts.kind}:${key}:${s.id}`,
    payload: pushPayload(facts, s.lang),
    nextAttemptAt: due,
  }));
}

/** Who `event` tells and what, or undefined when it tells no one (see the module comment). */
function pushOf(event: TaskEvent, task: Task | undefined): { staffId: string; kind: PushKind } | undefined {
  if (!task || task.sandbox || !task.assignedStaffId) return undefined;
  if (event.type === "task.assigned") {
    const assignment = event.payload.assignment as { assigned_at?: string } | null | undefined;
    if (!assignment?.assigned_at || task.assignedAt?.toISOString() !== assignment.assigned_at)
      return undefined;
    return { staffId: task.assignedStaffId, kind: "task_assigned" };
  }
  if (event.type === "task.at_risk") return { staffId: task.assignedStaffId, kind: "task_at_risk" };
  return undefined;
}

/**
 * Queues, in `tx`, the push messages of `events` (assignments, tasks at risk) for the live
 * subscriptions of the people they concern; a message already queued for an event and a
 * subscription is not queued again.
 * @returns how many messages were queued
 */
export async function queueEventPushes(
  tx: Tx,
  events: TaskEvent[],
  taskById: Map<string, Task>,
  now: Date,
): Promise<number> {
  const wanted = events.flatMap((e) => {
    const push = pushOf(e, e.taskId ? taskById.get(e.taskId) : undefined);
    return push ? [{ event: e, task: taskById.get(e.taskId!)!, ...push }] : [];
  });
  if (wanted.length === 0) return 0;
  const subs = await liveSubscriptions(tx, { staffIds: [...new Set(wanted.map((w) => w.staffId))] }, now);
  const rows = wanted.flatMap((w) =>
    messagesFor(
      { kind: w.kind, taskId: w.task.id, executionDeadline: w.task.executionDeadline },
      w.event.id,
      subs.filter((s) => s.staffId === w.staffId),
      now,
    ),
  );
  if (rows.length) await tx.insert(pushMessages).values(rows).onConflictDoNothing();
  return rows.length;
}

/**
 * Tells the reviewers of every task received more than PUSH_REVIEW_WAIT_MINUTES before `now` and
 * not yet told (at most `batch` a run, oldest first): records the notice and queues the messages
 * in one transaction, then wakes the outbox. Run by the deadline-watch cron (every 5 minutes).
 * @returns how many tasks were reported and how many messages queued
 */
export async function queueReviewWaitPushes(
  now = new Date(),
  batch = 200,
): Promise<{ review_waits: number; review_pushes: number }> {
  const minutes = getConfig().PUSH_REVIEW_WAIT_MINUTES;
  if (minutes === 0) return { review_waits: 0, review_pushes: 0 };
  const db = await getDb();
  const before = new Date(now.getTime() - minutes * 60_000);
  const result = await db.transaction(async (tx) => {
    const due = await tx
      .select({ id: tasks.id, createdAt: tasks.createdAt })
      .from(tasks)
      .where(
        and(
          eq(tasks.status, "received"),
          eq(tasks.sandbox, false),
          lt(tasks.createdAt, before),
          notExists(
            tx.select({ one: sql`1` }).from(pushReviewNotices).where(eq(pushReviewNotices.taskId, tasks.id)),
          ),
        ),
      )
      .orderBy(asc(tasks.createdAt))
      .limit(batch)
      .for("update", { of: tasks, skipLocked: true });
    if (due.length === 0) return { review_waits: 0, review_pushes: 0 };
    const noticed = await tx
      .insert(pushReviewNotices)
      .values(due.map((t) => ({ taskId: t.id, notifiedAt: now })))
      .onConflictDoNothing()
      .returning({ taskId: pushReviewNotices.taskId });
    const told = new Set(noticed.map((n) => n.taskId));
    const subs = await liveSubscriptions(tx, { roles: rolesHolding("tasks.review") }, now);
    const rows = due
      .filter((t) => told.has(t.id))
      .flatMap((t) =>
        messagesFor(
          {
            kind: "review_waiting",
            taskId: t.id,
            waitingMinutes: Math.floor((now.getTime() - t.createdAt.getTime()) / 60_000),
          },
          t.id,
          subs,
          new Date(), // due at once, whatever clock the tasks were judged by
        ),
      );
    if (rows.length) await tx.insert(pushMessages).values(rows).onConflictDoNothing();
    return { review_waits: told.size, review_pushes: rows.length };
  });
  if (result.review_pushes) eventsCommitted();
  return result;
}
