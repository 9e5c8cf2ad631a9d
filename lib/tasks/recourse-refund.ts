/**
 * Money back for recourse (issue 27: a dispute resolved with a refund, an SLA credit), through the
 * existing refund paths, inside the caller's transaction and under its lock of the task row:
 *
 * - prepaid account: a credit note of the charge and the ledger refund, at once
 *   (lib/billing/task-refunds.ts `creditToAccount`; audit `ledger.refund`);
 * - USDC (or out of band): a refund owed, `refund_status: pending` with the amount fixed now, in
 *   CAD and in micro-USDC at the task's own rate; finance sends it and records it with
 *   POST /api/task-refund and the transaction hash, which issues the credit note of the receipt
 *   (lib/tasks/settle-refund.ts). Refunds already owed and not yet settled are added to.
 *
 * What may be given back is what `refundableCad` (lib/billing/task-refunds.ts) says is left: what
 * was paid less every refund given or promised, whichever path wrote it (issue 42).
 */
import { creditToAccount, recordOwedRefund, syncRefundColumns } from "../billing/task-refunds.js";
import type { Tx } from "../db/client.js";
import type { Task } from "../db/schema/index.js";
import { cadToMicroUsdc } from "../money.js";

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
 * Gives `amountCad` (0 < amount ≤ `refundableCad(tx, task).leftCad`, lib/billing/task-refunds.ts)
 * of `task` (locked in `tx`) back to its payer, for `reason` (on the credit note, and the note
 * shown to the requester while owed); `source` and `disputeId` name what granted it. The caller
 * checks the amount; the prepaid path also caps it at what is left of the charge.
 */
export async function grantRefund(
  tx: Tx,
  task: Task,
  amountCad: number,
  reason: string,
  now: Date,
  source: { source: "dispute" | "sla_credit"; disputeId?: string },
): Promise<GrantedRefund> {
  if (task.paymentMethod === "account") {
    const credited =
      (await creditToAccount(tx, task, amountCad, source.source, reason, now, source.disputeId ?? null)) ?? 0;
    return { amountCad: credited, usdcMicro: null, how: "credited", task };
  }
  const micro = task.exchangeRate === null ? null : cadToMicroUsdc(amountCad, task.exchangeRate);
  await recordOwedRefund(tx, task, { amountCad, usdcMicro: micro, ...source }, now);
  const updated = await syncRefundColumns(tx, task, now, { refundNote: reason });
  return { amountCad, usdcMicro: micro, how: "owed", task: updated };
}
