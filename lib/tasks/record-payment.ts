/**
 * Marks a task paid (POST /api/task-payment for payments received out of band; the
 * on-chain checker and prepaid accounts use the same function). The execution
 * deadline restarts from the payment (SLA 72 h / 24 h).
 */
import type { PaymentMethod } from "../db/schema/enums.js";
import { applyTransition, type TransitionOptions, type TransitionResult } from "./apply-transition.js";
import { executionDeadline } from "./deadlines.js";

/** How a payment arrived. */
export interface PaymentRecord {
  method: PaymentMethod;
  network?: string | null;
  txHash?: string | null;
  note?: string | null;
}

/**
 * Moves an awaiting-payment task to `paid`. `after` runs in the same transaction once
 * the task row is updated (the payment checker writes its `chain_transfers` row there;
 * throwing rolls the payment back).
 * @throws ApiError NOT_FOUND, CONFLICT (not awaiting payment)
 */
export async function recordPayment(
  taskId: string,
  payment: PaymentRecord,
  now = new Date(),
  after?: TransitionOptions["after"],
): Promise<TransitionResult> {
  return applyTransition(taskId, "pay", {
    ...(after ? { after } : {}),
    changes: (task) => ({
      paidAt: now,
      paymentMethod: payment.method,
      paymentNetwork: payment.network ?? null,
      paymentTxHash: payment.txHash ?? null,
      executionDeadline: executionDeadline(now, task.urgency),
      // The accepted price: a counter-offer paid is a counter-offer accepted.
      priceCad: task.counterOfferAmount ?? task.priceCad,
    }),
    payload: (t) => ({
      method: payment.method,
      network: payment.network ?? null,
      tx_hash: payment.txHash ?? null,
      note: payment.note ?? null,
      execution_deadline: t.executionDeadline.toISOString(),
    }),
  });
}
