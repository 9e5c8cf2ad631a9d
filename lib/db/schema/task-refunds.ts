import { sql } from "drizzle-orm";
import { check, index, pgTable, text } from "drizzle-orm/pg-core";
import { cad, createdAt, usdcMicro } from "./columns.js";
import type { TaskRefundKind, TaskRefundSource } from "./enums.js";
import { tasks } from "./tasks.js";

/**
 * A task's refunds, append-only but for `settlement_id` (issue 42; docs/payments.md "Refunds"):
 * every path that gives money back or promises it — a cancellation, a dispute resolved with a
 * refund, an SLA credit, finance's settlement (POST /api/task-refund) — writes one entry, and
 * every cap sums them (lib/billing/task-refunds.ts `refundableCad`). The task's `refund_*`
 * columns are derived from these rows, never read for a cap.
 *
 * - `credit`: given back to the prepaid account at once (ledger refund and credit note);
 * - `owed`: promised to a payer in USDC or out of band; `amount_cad` null when the operator fixes
 *   it at settlement (a cancellation after dispatch); `settlement_id` names the settlement that
 *   closed it, null while pending;
 * - `settlement`: what finance recorded, one row per settlement (any number per task):
 *   `outcome` refunded (`amount_cad` sent or credited) or denied (`amount_cad` 0).
 */
export const taskRefunds = pgTable(
  "task_refunds",
  {
    /** `rfd_<id>`. */
    id: text("id").primaryKey(),
    taskId: text("task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    kind: text("kind").$type<TaskRefundKind>().notNull(),
    source: text("source").$type<TaskRefundSource>().notNull(),
    /** A dispute's refund: the dispute. */
    disputeId: text("dispute_id"),
    /** CAD, taxes included like the price paid; null only for an `owed` amount left to the operator. */
    amountCad: cad("amount_cad"),
    /** USDC owed, micro-units at the task's own rate (`owed` of a USDC task with a rate); else null. */
    usdcMicro: usdcMicro("usdc_micro"),
    /** `settlement`: `refunded` or `denied`. */
    outcome: text("outcome").$type<"refunded" | "denied">(),
    /** `owed`: the settlement (`rfd_…` of kind `settlement`) that closed it; null while pending. */
    settlementId: text("settlement_id"),
    /** `settlement` of a USDC refund: its transaction (0x hex), when given. */
    txHash: text("tx_hash"),
    /** The credit note issued with it (prepaid credit; USDC settlement with a receipt), when known. */
    invoiceId: text("invoice_id"),
    createdAt: createdAt(),
  },
  (t) => [
    index("task_refunds_task_id_idx").on(t.taskId, t.createdAt),
    check("task_refunds_amount_not_negative", sql`amount_cad is null or amount_cad >= 0`),
  ],
);

export type TaskRefund = typeof taskRefunds.$inferSelect;
export type NewTaskRefund = typeof taskRefunds.$inferInsert;
