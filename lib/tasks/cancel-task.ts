/**
 * Cancellation (DELETE /api/submit-task; docs/api-conventions.md "Cancellation"): by the owning
 * key (scope `task_cancel`), an admin, or the anonymous access token. Before payment
 * it is free. After payment the task is cancelled and a refund request is recorded
 * for the operator (`refund_status: pending`): before dispatch a full refund to the
 * originating wallet (or prepaid account); after dispatch as the service's
 * cancellation policy says (the operator fixes the amount). Terminal tasks → 409.
 * A task paid from a prepaid account and cancelled before dispatch is refunded to the
 * account in the same transaction (`refund_status: refunded`).
 */
import { refundTaskToAccount } from "../billing/charge-task.js";
import { findUsdcReceipt } from "../billing/credit-notes.js";
import { DomainError } from "../errors.js";
import { type Caller, hasScope } from "../keys/credentials.js";
import { applyTransition, getTaskOrThrow, type TransitionResult } from "./state/apply-transition.js";
import { type TaskAccess, taskAccess, tokenMatches } from "./state/task-access.js";

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
      const dispatched = locked.dispatchedAt !== null;
      // Paid from a prepaid account and not yet dispatched: refunded to the account at once.
      const accountRefund =
        paid && !dispatched && locked.paymentMethod === "account"
          ? await refundTaskToAccount(tx, locked, "cancelled before dispatch", now)
          : null;
      return {
        cancelledAt: now,
        cancelReason: reason ?? null,
        refundStatus: accountRefund !== null ? "refunded" : paid ? "pending" : "none",
        // Paid in USDC: the full refund is the receipt's total (the price with the taxes paid).
        refundAmountCad:
          accountRefund ??
          (paid && !dispatched ? ((await findUsdcReceipt(tx, locked))?.amountCad ?? locked.priceCad) : null),
      };
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
