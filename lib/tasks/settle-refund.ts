/**
 * Settling a refund request (POST /api/task-refund, operator). A task cancelled after
 * payment carries `refund_status: pending` (lib/tasks/cancel-task.ts; docs/api-conventions.md
 * "Cancellation"); the operator then records what happened:
 *
 * - `refunded`: the money went back. A task paid from a prepaid account is credited to the
 *   account here (ledger refund and refund invoice, lib/billing/charge-task.ts); a USDC or
 *   out-of-band refund is sent by the operator, who records its transaction hash. A task paid in
 *   USDC with a receipt gets a credit note of that receipt (its number, the network, the refund's
 *   transaction; taxes reversed in proportion: lib/billing/credit-notes.ts), and "the price paid"
 *   is the receipt's total (taxes included).
 * - `denied`: no refund under the service's cancellation policy (spec "Services":
 *   `cancellation_policy.after_dispatch`), with the reason for the requester.
 *
 * Each settlement is an entry of the task's refunds (lib/billing/task-refunds.ts), any number per
 * task (a second dispute, an SLA credit after a dispute's refund): it closes the refunds owed, its
 * amount is capped by what was paid less everything already given back, and its e-mail is keyed
 * by the settlement. The entry, the task row (refund columns derived from the entries, version),
 * the ledger rows and the requester's e-mail are written in one transaction; the task row lock
 * makes two finance people settling at once one settlement and one 409. A refund owed by recourse (a dispute resolved with a refund, an SLA
 * credit; lib/tasks/recourse-refund.ts) is settled the same way on a completed or failed task.
 * The task's status does not change (it stays `cancelled`, or finished), so
 * no task event is emitted: the contract's event list has no refund event.
 */
import { eq } from "drizzle-orm";
import { refundTaskToAccount } from "../billing/charge-task.js";
import { creditUsdcReceipt, findUsdcReceipt } from "../billing/credit-notes.js";
import { recordSettlement, refundableCad, syncRefundColumns } from "../billing/task-refunds.js";
import { recordAudit } from "../db/audit.js";
import { getDb } from "../db/client.js";
import { emails, slaCreditChecks, type Task } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { kickOutbox } from "../events/kick-outbox.js";
import { commonValues, taskEmailRow } from "../mail/compose-task-email.js";
import { formatCad } from "../mail/format.js";
import { applyUnverifiedRecipientRule } from "../mail/unverified-recipients.js";
import { toCents } from "../money.js";
import type { SettleRefundBody } from "./state/admin-schemas.js";
import { getTaskOrThrow } from "./state/apply-transition.js";

/**
 * Records the outcome of task `body.task_id`'s pending refund at `now`.
 * @returns the updated task row.
 * @throws DomainError NOT_FOUND (unknown task); CONFLICT (refund not pending, `current_refund_status`
 *   in the error); VALIDATION_ERROR (amount above what was paid less what was already given back:
 *   `max_amount_cad`; `tx_hash` for an account-paid task, whose refund is credited here; nothing
 *   left to credit to the account or of the USDC receipt)
 */
export async function settleRefund(body: SettleRefundBody, now = new Date()): Promise<Task> {
  const db = await getDb();
  const settled = await db.transaction(async (tx) => {
    const task = await getTaskOrThrow(body.task_id, tx, true);
    if (task.refundStatus !== "pending") {
      throw new DomainError(
        "CONFLICT",
        `Task ${task.id} has no pending refund request (refund_status ${task.refundStatus})`,
        { extra: { current_refund_status: task.refundStatus } },
      );
    }
    const receipt = task.paymentMethod === "usdc" ? await findUsdcReceipt(tx, task) : null;
    // What may go back: what was paid less everything already given back, whichever path gave it
    // (the owed entries this settlement closes are its own): lib/billing/task-refunds.ts.
    const { settleableCad } = await refundableCad(tx, task);
    let amount: number | null = null;
    let invoiceId: string | null = null;
    if (body.outcome === "refunded") {
      amount = body.amount_cad ?? task.refundAmountCad ?? settleableCad;
      if (toCents(amount) > toCents(settleableCad)) {
        throw new DomainError(
          "VALIDATION_ERROR",
          `amount_cad is above what is left to refund of task ${task.id} (at most ${settleableCad} CAD)`,
          { field: "amount_cad", extra: { max_amount_cad: settleableCad } },
        );
      }
      if (task.paymentMethod === "account") {
        if (body.tx_hash) {
          throw new DomainError(
            "VALIDATION_ERROR",
            "tx_hash: this task was paid from a prepaid account; the refund is credited to the account",
            { field: "tx_hash" },
          );
        }
        const credited = await refundTaskToAccount(tx, task, "cancelled task, refund settled", now, amount);
        if (credited === null) {
          throw new DomainError("VALIDATION_ERROR", "Nothing of this task's charge is left to refund", {
            field: "amount_cad",
          });
        }
        amount = credited.amountCad;
        // The settlement names its credit note, as a receipt's does: billing reads its reason there.
        invoiceId = credited.invoiceId;
      } else if (receipt) {
        invoiceId = await creditUsdcReceipt(
          tx,
          task,
          receipt,
          amount,
          body.tx_hash?.toLowerCase() ?? null,
          now,
        );
      }
    }
    // One settlement entry each (any number per task); it closes the owed entries.
    const settlementId = await recordSettlement(
      tx,
      task,
      {
        outcome: body.outcome,
        amountCad: amount ?? 0,
        txHash: body.tx_hash?.toLowerCase() ?? null,
        invoiceId,
      },
      now,
    );
    // A denied or smaller settlement can leave room for an SLA credit: the job looks again.
    await tx.delete(slaCreditChecks).where(eq(slaCreditChecks.taskId, task.id));
    const updated = await syncRefundColumns(tx, task, now, { refundNote: body.note ?? null });
    await recordAudit(tx, {
      action: "refund.settle",
      taskId: task.id,
      targetKind: "refund_settlement",
      targetId: settlementId,
      details: {
        outcome: body.outcome,
        amount_cad: amount,
        payment_method: task.paymentMethod,
        tx_hash: body.tx_hash?.toLowerCase() ?? null,
      },
    });
    if (!task.sandbox) {
      const values = {
        ...commonValues(task),
        cancelled: task.status === "cancelled",
        refunded: body.outcome === "refunded",
        denied: body.outcome === "denied",
        amount_cad: amount === null ? null : formatCad(amount, task.lang),
        to_account: body.outcome === "refunded" && task.paymentMethod === "account",
        tx_hash: body.tx_hash?.toLowerCase() ?? null,
        note: body.note ?? null,
      };
      const rows = await applyUnverifiedRecipientRule(
        tx,
        [
          {
            // Keyed by the settlement: a task's second and third settlements each e-mail once.
            ...taskEmailRow(task, "refund-settled", values, `refund-settled:${settlementId}`),
            nextAttemptAt: now,
          },
        ],
        () => updated,
      );
      await tx.insert(emails).values(rows);
    }
    return updated!;
  });
  kickOutbox(); // sends the e-mail (lib/events)
  return settled;
}
