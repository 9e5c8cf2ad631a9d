import { sql } from "drizzle-orm";
import { index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { timestamptz, usdcMicro } from "./columns.js";
import { tasks } from "./tasks.js";

/**
 * Exact USDC amounts given to non-sandbox tasks for on-chain payment, one row per task
 * (a task is priced once: approve or counter-offer). The row is the amount's history:
 *
 * - `assigned_at`: when the amount was given to the task. A transfer pays the task only if
 *   its block time is at or after this moment (docs/payments.md "Payments", amounts).
 * - `released_at`: when the task stopped awaiting payment (paid, expired, cancelled);
 *   null while it awaits payment. A released amount is given to no other task for
 *   `AMOUNT_REUSE_COOLDOWN_HOURS`.
 *
 * The partial unique index lets one task at a time hold an amount: concurrent approvals
 * that pick the same amount insert with `ON CONFLICT DO NOTHING` and the loser moves on
 * to the next amount, with no error (lib/tasks/state/amount-reservations.ts).
 */
export const paymentAmounts = pgTable(
  "payment_amounts",
  {
    /** The task the amount was given to. */
    taskId: text("task_id")
      .primaryKey()
      .references(() => tasks.id, { onDelete: "cascade" }),
    /** Exact amount, micro-USDC (equal to `tasks.payment_usdc_micro`). */
    amountMicro: usdcMicro("amount_micro").notNull(),
    /** When the amount was given to the task (the approval or counter-offer). */
    assignedAt: timestamptz("assigned_at").notNull(),
    /** When the task stopped awaiting payment; null while it awaits payment. */
    releasedAt: timestamptz("released_at"),
  },
  (t) => [
    uniqueIndex("payment_amounts_held_uq").on(t.amountMicro).where(sql`released_at is null`),
    index("payment_amounts_amount_idx").on(t.amountMicro, t.assignedAt),
  ],
);

export type PaymentAmount = typeof paymentAmounts.$inferSelect;
