/**
 * SLA credits (api/cron/sla-credits; issue 27, docs/tasks.md "Recourse: disputes and SLA credits"): a paid task completed or failed
 * after its `execution_deadline` is credited SLA_CREDIT_PERCENT of what was paid per full 24 h
 * late, at most SLA_CREDIT_CAP_PERCENT (lib/tasks/state/recourse.ts), and never more than is left
 * of what was paid after every other refund given or owed (lib/billing/task-refunds.ts
 * `refundableCad`). The money goes back through the refund paths of lib/tasks/recourse-refund.ts:
 * prepaid → credit note and ledger refund in the same transaction; USDC → a refund owed in the
 * finance queue with the exact amount. Each credit writes its `sla_credits` row (the task id is its
 * key), the `task.sla_credited` event and the audit row `sla.credit` in one transaction, under the
 * task's row lock: run twice, or by two instances at once, a task is credited once.
 */
import { and, eq, gt, notExists, sql } from "drizzle-orm";
import { refundableCad } from "../billing/task-refunds.js";
import { getConfig } from "../config.js";
import { eventsCommitted } from "../db/after-events.js";
import { recordAudit } from "../db/audit.js";
import { getDb } from "../db/client.js";
import {
  ledgerEntries,
  SLA_CREDIT_CANDIDATE,
  slaCreditChecks,
  slaCredits,
  tasks,
} from "../db/schema/index.js";
import type { Tx } from "../db/types.js";
import { formatUsdc } from "../money.js";
import { grantRefund } from "./recourse-refund.js";
import { getTaskOrThrow } from "./state/apply-transition.js";
import { percentOfCad, slaCreditPercent } from "./state/recourse.js";
import { emitTaskEvent } from "./state/task-events.js";

/**
 * When a task finished, as SQL: its `completed_at`, else the time of its `task.failed` event.
 * The outer columns are spelled qualified by hand: drizzle writes them unqualified in a select
 * list, where `"id"` inside the subquery would name the event's.
 */
const finishedAt = sql<Date | string>`coalesce("tasks"."completed_at", (
  select max(e.created_at) from task_events e where e.task_id = "tasks"."id" and e.type = 'task.failed'))`;

/**
 * Records that late task `taskId` has nothing to credit (`sla_credit_checks`), so the scan skips
 * it from now on; a refund settlement deletes the row (lib/tasks/settle-refund.ts). Returns null.
 */
async function noCredit(
  tx: Tx,
  taskId: string,
  outcome: "nothing_left" | "no_credit_due",
  now: Date,
): Promise<null> {
  await tx
    .insert(slaCreditChecks)
    .values({ taskId, outcome, checkedAt: now })
    .onConflictDoUpdate({ target: slaCreditChecks.taskId, set: { outcome, checkedAt: now } });
  return null;
}

/**
 * Credits task `taskId`, finished at `finished`, in its own transaction; returns the amount
 * credited (CAD), or null when nothing was (credited already, nothing late or left).
 */
async function creditTask(taskId: string, finished: Date, now: Date): Promise<number | null> {
  const config = getConfig();
  const db = await getDb();
  return db.transaction(async (tx) => {
    let task = await getTaskOrThrow(taskId, tx, true);
    const [done] = await tx
      .select({ at: slaCredits.createdAt })
      .from(slaCredits)
      .where(eq(slaCredits.taskId, taskId));
    if (done) return null;
    const { daysLate, percent } = slaCreditPercent(
      task.executionDeadline,
      finished,
      config.SLA_CREDIT_PERCENT,
      config.SLA_CREDIT_CAP_PERCENT,
    );
    if (percent <= 0) return noCredit(tx, taskId, "no_credit_due", now);
    // A percentage of what was paid, capped by what is left after every refund given or owed
    // (a dispute's refund, a cancellation; issue 42).
    const { paidCad, leftCad } = await refundableCad(tx, task);
    const amount = Math.min(percentOfCad(paidCad, percent), leftCad);
    if (amount <= 0) return noCredit(tx, taskId, "nothing_left", now);
    // The key: a concurrent run that got here first leaves nothing to insert (and nothing is granted).
    const inserted = await tx
      .insert(slaCredits)
      .values({ taskId, daysLate, percent, amountCad: amount, createdAt: now })
      .onConflictDoNothing()
      .returning({ taskId: slaCredits.taskId });
    if (inserted.length === 0) return null;
    const reason = `SLA credit: ${daysLate} full day(s) late, ${percent} %`;
    const granted = await grantRefund(tx, task, amount, reason, now, { source: "sla_credit" });
    task = granted.task;
    let invoiceId: string | null = null;
    if (granted.how === "credited") {
      const [entry] = await tx
        .select({ invoiceId: ledgerEntries.invoiceId })
        .from(ledgerEntries)
        .where(and(eq(ledgerEntries.taskId, taskId), eq(ledgerEntries.kind, "refund")))
        .orderBy(sql`${ledgerEntries.createdAt} desc`, sql`${ledgerEntries.id} desc`)
        .limit(1);
      invoiceId = entry?.invoiceId ?? null;
    }
    await tx
      .update(slaCredits)
      .set({ usdcMicro: granted.usdcMicro, invoiceId })
      .where(eq(slaCredits.taskId, taskId));
    const eventId = await emitTaskEvent(
      tx,
      task,
      "task.sla_credited",
      {
        execution_deadline: task.executionDeadline.toISOString(),
        finished_at: finished.toISOString(),
        days_late: daysLate,
        percent,
        credited_cad: granted.amountCad,
        credited_usdc: granted.usdcMicro === null ? null : formatUsdc(granted.usdcMicro),
        paid_as: granted.how === "credited" ? "account_credit" : "refund_owed",
        refund_status: task.refundStatus,
      },
      now,
    );
    await recordAudit(tx, {
      action: "sla.credit",
      taskId,
      targetKind: "sla_credit",
      targetId: taskId,
      details: {
        days_late: daysLate,
        percent,
        amount_cad: granted.amountCad,
        payment_method: task.paymentMethod,
        invoice_id: invoiceId,
        event_id: eventId,
      },
    });
    return granted.amountCad;
  });
}

/**
 * Credits every paid, non-sandbox task finished after its execution deadline and not yet
 * credited nor found with nothing to credit (`sla_credit_checks`; at most `batch` per run, oldest
 * deadline first). The scan reads the partial index of
 * late or failed tasks (`SLA_CREDIT_CANDIDATE`); a failed task's lateness is read from its
 * `task.failed` event.
 * @returns `{ checked, credited, credited_cad }`
 */
export async function creditLateTasks(
  now = new Date(),
  batch = 200,
): Promise<{ checked: number; credited: number; credited_cad: number }> {
  const db = await getDb();
  const due = await db
    .select({ id: tasks.id, finishedAt })
    .from(tasks)
    .where(
      and(
        SLA_CREDIT_CANDIDATE,
        gt(tasks.priceCad, 0),
        sql`${finishedAt} >= ${tasks.executionDeadline} + interval '24 hours'`,
        notExists(db.select({ one: sql`1` }).from(slaCredits).where(eq(slaCredits.taskId, tasks.id))),
        notExists(
          db.select({ one: sql`1` }).from(slaCreditChecks).where(eq(slaCreditChecks.taskId, tasks.id)),
        ),
      ),
    )
    .orderBy(tasks.executionDeadline, tasks.id)
    .limit(batch);
  let credited = 0;
  let total = 0;
  for (const row of due) {
    const amount = await creditTask(row.id, new Date(row.finishedAt), now);
    if (amount === null) continue;
    credited++;
    total += Math.round(amount * 100);
  }
  if (credited) eventsCommitted();
  return { checked: due.length, credited, credited_cad: total / 100 };
}
