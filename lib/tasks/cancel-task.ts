/**
 * Cancellation (DELETE /api/submit-task; docs/api-conventions.md "Cancellation"): by the owning
 * key (scope `task_cancel`), an admin, or the anonymous access token. Before payment
 * it is free. After payment the task is cancelled and a refund request is recorded
 * for the operator (`refund_status: pending`): before dispatch a full refund to the
 * originating wallet (or prepaid account); after dispatch as the service's
 * cancellation policy says (the operator fixes the amount). Terminal tasks → 409.
 * A task paid from a prepaid account and cancelled before dispatch is refunded to the
 * account in the same transaction (`refund_status: refunded`). Either way the refund is an entry
 * of the task's running total (lib/billing/task-refunds.ts), which the refund columns derive from.
 *
 * Review SLA missed (issue 27): a task reviewed after its `review_deadline` may be cancelled by
 * its owner with a full refund even after dispatch (prepaid: credited at once; USDC: the full
 * amount pending for finance), and the cancellation also writes the event `task.sla_missed`.
 */
import { creditToAccount, recordOwedRefund, refundableCad, refundColumns } from "../billing/task-refunds.js";
import { DomainError } from "../errors.js";
import { type Caller, hasScope } from "../keys/credentials.js";
import { applyTransition, getTaskOrThrow, type TransitionResult } from "./state/apply-transition.js";
import { type TaskAccess, taskAccess, tokenMatches } from "./state/task-access.js";
import { emitTaskEvent } from "./state/task-events.js";

/** Whether `task` was reviewed after its review deadline (the review SLA missed). */
function reviewSlaMissed(task: { reviewedAt: Date | null; reviewDeadline: Date }): boolean {
  return task.reviewedAt !== null && task.reviewedAt > task.reviewDeadline;
}

/**
 * Cancels task `taskId` for `credential`: its owner (lib/tasks/state/task-access.ts; a key needs
 * the `task_cancel` scope, the access token does not) or an admin.
 * @returns the transition and the credential's access (for the status view answered)
 * @throws DomainError NOT_FOUND, FORBIDDEN (no ownership credential or scope), CONFLICT (terminal)
 */
export async function cancelTask(
  taskId: string,
  credential: { caller: Caller | null; accessToken?: string | undefined },
  reason: string | undefined,
  now = new Date(),
): Promise<TransitionResult & { access: TaskAccess }> {
  const task = await getTaskOrThrow(taskId);
  const { caller, accessToken } = credential;
  const access = await taskAccess(task, credential);
  if (access === "public") {
    throw new DomainError(
      "FORBIDDEN",
      "Only the task's owner (the key that submitted it, a key of the same account, or its access_token) or an admin can cancel it",
    );
  }
  const ownsByToken =
    accessToken !== undefined &&
    task.accessTokenHash !== null &&
    tokenMatches(accessToken, task.accessTokenHash);
  if (caller && !ownsByToken && !hasScope(caller, "task_cancel")) {
    throw new DomainError("FORBIDDEN", "Cancelling requires the task_cancel scope");
  }
  const result = await applyTransition(taskId, "cancel", {
    changes: async (locked, tx) => {
      const paid = locked.paidAt !== null;
      // A review past its deadline: the full refund is owed whatever the dispatch (issue 27).
      const missed = paid && reviewSlaMissed(locked);
      const dispatched = locked.dispatchedAt !== null && !missed;
      if (paid) {
        // The full refund is what is left of what was paid (the receipt's total with its taxes,
        // the charge, or the price): lib/billing/task-refunds.ts `refundableCad`.
        const { leftCad } = await refundableCad(tx, locked);
        // Paid from a prepaid account and not yet dispatched: refunded to the account at once.
        const credited =
          !dispatched && locked.paymentMethod === "account"
            ? await creditToAccount(
                tx,
                locked,
                leftCad,
                "cancellation",
                missed ? "cancelled, review deadline missed" : "cancelled before dispatch",
                now,
              )
            : null;
        if (credited === null) {
          // Owed: the full amount before dispatch; after it, the operator fixes it at settlement.
          await recordOwedRefund(
            tx,
            locked,
            { amountCad: dispatched ? null : leftCad, usdcMicro: null, source: "cancellation" },
            now,
          );
        }
      }
      return { cancelledAt: now, cancelReason: reason ?? null, ...(await refundColumns(tx, locked.id)) };
    },
    after: async (t, tx) => {
      if (t.paidAt !== null && reviewSlaMissed(t)) {
        await emitTaskEvent(tx, t, "task.sla_missed", {
          sla: "review",
          review_deadline: t.reviewDeadline.toISOString(),
          reviewed_at: t.reviewedAt?.toISOString() ?? null,
          refund_status: t.refundStatus,
          refund_amount_cad: t.refundAmountCad,
        });
      }
    },
    payload: (t) => ({
      reason: t.cancelReason,
      refund_status: t.refundStatus,
      refund_amount_cad: t.refundAmountCad,
      cancelled_by:
        access === "admin"
          ? task.apiKeyId === caller?.keyId
            ? "owner"
            : "admin"
          : ownsByToken
            ? "access_token"
            : "owner",
    }),
  });
  return { ...result, access };
}
