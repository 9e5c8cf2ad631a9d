/**
 * Money back for recourse (issue 27: a dispute resolved with a refund, an SLA credit), through the
 * existing refund paths, inside the caller's transaction and under its lock of the task row:
 *
 * - prepaid account: a credit note of the charge and the ledger refund, at once
 *   (lib/billing/charge-task.ts `refundTaskToAccount`; audit `ledger.refund`);
 * - USDC (or out of band): a refund owed, `refund_status: pending` with the amount fixed now, in
 *   CAD and in micro-USDC at the task's own rate; finance sends it and records it with
 *   POST /api/task-refund and the transaction hash, which issues the credit note of the receipt
 *   (lib/tasks/settle-refund.ts). A refund already owed and not yet settled is added to.
 *
 * What may be given back is what is left of what was paid: the charge less its refunds, or the
 * USDC receipt's total less its credit notes and the refund already owed; so credit notes never
 * exceed what was charged.
 */
import { eq, sql } from "drizzle-orm";
import { accountRefundLeftCad, refundTaskToAccount } from "../billing/charge-task.js";
import { findUsdcReceipt, receiptCreditLeftCad } from "../billing/credit-notes.js";
import type { Tx } from "../db/client.js";
import { type Task, tasks } from "../db/schema/index.js";
import { cadToMicroUsdc, fromCents, toCents } from "../money.js";

/** What is still owed on `task` and not yet settled, CAD (its pending refund), else 0. */
function owedCad(task: Pick<Task, "refundStatus" | "refundAmountCad">): number {
  return task.refundStatus === "pending" ? (task.refundAmountCad ?? 0) : 0;
}

/**
 * What is left to give back of what `task` (locked in `tx`) was paid, CAD, taxes included: see
 * the module comment. 0 for a task never paid.
 */
export async function refundableCad(tx: Tx, task: Task): Promise<number> {
  if (!task.paidAt) return 0;
  if (task.paymentMethod === "account") return (await accountRefundLeftCad(tx, task.id)) ?? 0;
  const receipt = await findUsdcReceipt(tx, task);
  const left = receipt
    ? await receiptCreditLeftCad(tx, receipt)
    : (task.priceCad ?? 0) - (task.refundStatus === "refunded" ? (task.refundAmountCad ?? 0) : 0);
  return Math.max(0, fromCents(toCents(left) - toCents(owedCad(task))));
}

/** What a refund granted wrote. */
export interface GrantedRefund {
  amountCad: number;
  /** USDC owed, micro-units at the task's rate; null for a prepaid refund (or no rate). */
  usdcMicro: bigint | null;
  /** `credited`: to the prepaid account now; `owed`: pending for finance. */
  how: "credited" | "owed";
  /** The updated task row. */
  task: Task;
}

/**
 * Gives `amountCad` (0 < amount ≤ {@link refundableCad}) of `task` (locked in `tx`) back to its
 * payer, for `reason` (shown on the credit note and to the requester). The caller checks the
 * amount; the prepaid path caps it at what is left of the charge.
 */
export async function grantRefund(
  tx: Tx,
  task: Task,
  amountCad: number,
  reason: string,
  now = new Date(),
): Promise<GrantedRefund> {
  if (task.paymentMethod === "account") {
    const credited = (await refundTaskToAccount(tx, task, reason, now, amountCad)) ?? 0;
    return { amountCad: credited, usdcMicro: null, how: "credited", task };
  }
  const micro = task.exchangeRate === null ? null : cadToMicroUsdc(amountCad, task.exchangeRate);
  const pending = task.refundStatus === "pending";
  const [updated] = await tx
    .update(tasks)
    .set({
      refundStatus: "pending",
      refundAmountCad: fromCents(toCents(owedCad(task)) + toCents(amountCad)),
      refundUsdcMicro:
        micro === null
          ? pending
            ? task.refundUsdcMicro
            : null
          : (pending ? (task.refundUsdcMicro ?? 0n) : 0n) + micro,
      refundSettledAt: null,
      refundTxHash: null,
      refundNote: reason,
      version: sql`${tasks.version} + 1`,
      updatedAt: now,
    })
    .where(eq(tasks.id, task.id))
    .returning();
  return { amountCad, usdcMicro: micro, how: "owed", task: updated! };
}
