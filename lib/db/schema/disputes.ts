import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { cad, createdAt, storedFileColumns, timestamptz, usdcMicro } from "./columns.js";
import type { DisputeReason, DisputeResolution, DisputeStatus } from "./enums.js";
import { tasks } from "./tasks.js";

/**
 * Disputes (issue 27; docs/tasks.md "Recourse: disputes and SLA credits"): a task's owner contests a completed task within
 * DISPUTE_WINDOW_HOURS of its completion; staff resolve it (POST /api/dispute-resolve). The task
 * keeps its terminal status. At most one open dispute per task (partial unique index); the
 * resolution is written once, under the row lock (`SELECT … FOR UPDATE`).
 */
export const taskDisputes = pgTable(
  "task_disputes",
  {
    /** `dsp_<id>`. */
    id: text("id").primaryKey(),
    taskId: text("task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    status: text("status").$type<DisputeStatus>().notNull().default("open"),
    reason: text("reason").$type<DisputeReason>().notNull(),
    /** The requester's account of what went wrong (plain text, at most 2000 characters). */
    details: text("details").notNull(),
    openedAt: timestamptz("opened_at").notNull().defaultNow(),
    resolution: text("resolution").$type<DisputeResolution>(),
    /** Staff's reason (required for `reject`), shown to the requester. */
    resolutionReason: text("resolution_reason"),
    /** Refund granted, CAD (taxes included, like the price paid); null for `redo` and `reject`. */
    refundAmountCad: cad("refund_amount_cad"),
    /** USDC refund owed, micro-units at the task's own rate; null unless the task was paid in USDC. */
    refundUsdcMicro: usdcMicro("refund_usdc_micro"),
    /** `redo`: the follow-up task created at no charge (it names this task in `redo_of_task_id`). */
    followUpTaskId: text("follow_up_task_id"),
    resolvedAt: timestamptz("resolved_at"),
  },
  (t) => [
    /** One open dispute per task. */
    uniqueIndex("task_disputes_task_open_uq").on(t.taskId).where(sql`status = 'open'`),
    index("task_disputes_task_id_idx").on(t.taskId),
    /** The staff queue: open first, oldest first (GET /api/disputes). */
    index("task_disputes_status_opened_at_idx").on(t.status, t.openedAt),
  ],
);

/**
 * Evidence files of a dispute, decoded and checked as proof files are
 * (lib/tasks/state/proof-files.ts); stored in the database like them.
 */
export const disputeFiles = pgTable(
  "dispute_files",
  {
    /** `df_<id>`. */
    id: text("id").primaryKey(),
    disputeId: text("dispute_id")
      .notNull()
      .references(() => taskDisputes.id, { onDelete: "cascade" }),
    ...storedFileColumns(),
    createdAt: createdAt(),
  },
  (t) => [index("dispute_files_dispute_id_idx").on(t.disputeId)],
);

/**
 * SLA credits (issue 27; api/cron/sla-credits): one per paid task completed or failed after its
 * execution deadline, SLA_CREDIT_PERCENT of its price per full 24 h late, capped at
 * SLA_CREDIT_CAP_PERCENT. The task id is the primary key: a second run, or two concurrent ones,
 * cannot credit a task twice.
 */
export const slaCredits = pgTable(
  "sla_credits",
  {
    taskId: text("task_id")
      .primaryKey()
      .references(() => tasks.id, { onDelete: "cascade" }),
    /** Started 24 h periods between the execution deadline and completion (or failure). */
    daysLate: integer("days_late").notNull(),
    /** Percent of the price credited (after the cap). */
    percent: integer("percent").notNull(),
    /** Credit, CAD (of what was paid, taxes included). */
    amountCad: cad("amount_cad").notNull(),
    /** USDC-paid task: the refund owed, micro-units at the task's own rate; else null. */
    usdcMicro: usdcMicro("usdc_micro"),
    /** Prepaid task: the credit note issued with the ledger refund; else null (issued when finance settles). */
    invoiceId: text("invoice_id"),
    createdAt: createdAt(),
  },
  () => [check("sla_credits_amount_positive", sql`amount_cad > 0`)],
);

/**
 * Late tasks the SLA-credit job examined and found nothing to credit (the cron's scan skips them):
 * `nothing_left` (every cent paid already given back or owed) or `no_credit_due` (a credit of 0 %
 * under SLA_CREDIT_PERCENT). Without it, such a task matched the scan every hour forever, and a
 * batch full of them (oldest deadline first) kept newer late tasks from ever being credited. A
 * refund settlement deletes its task's row (a denied or smaller settlement gives room back), so the
 * next run looks again.
 */
export const slaCreditChecks = pgTable("sla_credit_checks", {
  taskId: text("task_id")
    .primaryKey()
    .references(() => tasks.id, { onDelete: "cascade" }),
  outcome: text("outcome").$type<"nothing_left" | "no_credit_due">().notNull(),
  checkedAt: timestamptz("checked_at").notNull(),
});

export type TaskDispute = typeof taskDisputes.$inferSelect;
export type NewTaskDispute = typeof taskDisputes.$inferInsert;
export type DisputeFile = typeof disputeFiles.$inferSelect;
export type SlaCredit = typeof slaCredits.$inferSelect;
