/**
 * What the API tells a caller about a task from its row alone, with no further read: when to
 * poll again (`_polling.next_poll_seconds`, the `Retry-After` of a status read), the recommended
 * next action (the owner's, and the public one). Shared by the HTTP status view
 * (lib/tasks/task-view.ts) and MCP, which loads it without the database layer.
 */
import type { TaskStatus } from "../db/schema/enums.js";
import type { Task } from "../db/schema/index.js";
import { formatUsdc } from "../money.js";
import { isTerminal } from "./state/transitions.js";

/** Seconds until the next useful poll, per status. Sandbox tasks advance on each poll. */
export const NEXT_POLL_SECONDS: Record<TaskStatus, number> = {
  received: 300,
  accepted_pending_payment: 60,
  counter_offered: 60,
  paid: 300,
  dispatched: 120,
  on_site: 60,
  completed: 0,
  failed: 0,
  rejected: 0,
  payment_expired: 0,
  cancelled: 0,
};

/**
 * Seconds until the next useful status poll of `task`: 1 for a non-terminal sandbox task (it
 * advances one step per poll), else {@link NEXT_POLL_SECONDS} of its status (0 once terminal).
 * The one rule behind `_polling.next_poll_seconds` and the `Retry-After` header of
 * GET /api/submit-task, which is sent only while {@link retryAfterSeconds} is not null.
 */
export function nextPollSeconds(task: Pick<Task, "status" | "sandbox">): number {
  return task.sandbox && !isTerminal(task.status) ? 1 : NEXT_POLL_SECONDS[task.status];
}

/**
 * The `Retry-After` value of a status read, in seconds: {@link nextPollSeconds} while the task
 * can still change, null once it is terminal (nothing left to wait for, no header).
 */
export function retryAfterSeconds(task: Pick<Task, "status" | "sandbox">): number | null {
  return isTerminal(task.status) ? null : nextPollSeconds(task);
}

/** What the caller should do next about `task`, one sentence (`_polling.recommended_action`). */
export function recommendedAction(task: Task): string {
  const usdc = task.paymentUsdcMicro === null ? null : formatUsdc(task.paymentUsdcMicro);
  switch (task.status) {
    case "received":
      return `Wait for human review (deadline ${task.reviewDeadline.toISOString()}).`;
    case "accepted_pending_payment":
      return usdc
        ? `Pay exactly ${usdc} USDC to a wallet in payment.networks before ${task.paymentExpiresAt?.toISOString()}.`
        : "Wait for payment instructions.";
    case "counter_offered":
      return `The operator proposes ${task.counterOfferAmount} CAD${task.reviewReason ? ` (${task.reviewReason})` : ""}. Pay exactly ${usdc} USDC before ${task.paymentExpiresAt?.toISOString()} to accept, or let it expire.`;
    case "paid":
      return "Payment confirmed; wait for dispatch.";
    case "dispatched":
      return "An operator is on the way.";
    case "on_site":
      return "The operator is on site.";
    case "completed":
      return "Done: read proof_files_data and operator_notes.";
    case "failed":
      return "The task could not be completed; see failure_reason. A refund follows the cancellation policy.";
    case "rejected":
      return "Rejected; see review_reason. Submit a new task if appropriate.";
    case "payment_expired":
      return "The payment window closed; submit the task again to get a new quote.";
    case "cancelled":
      return task.refundStatus === "pending"
        ? "Cancelled; a refund request is with the operator."
        : task.refundStatus === "refunded"
          ? "Cancelled and refunded; see refund."
          : task.refundStatus === "denied"
            ? "Cancelled; no refund under the cancellation policy (see refund.note)."
            : "Cancelled.";
  }
}

/**
 * The `_polling.recommended_action` of the public status (a caller without the owner's credential,
 * lib/tasks/state/task-access.ts): what the status means, with no amount, reason or note of the task.
 */
export function publicAction(task: Pick<Task, "status">): string {
  switch (task.status) {
    case "received":
      return "Waiting for human review.";
    case "accepted_pending_payment":
    case "counter_offered":
      return "Waiting for the requester's payment; its details are shown to the requester only.";
    case "paid":
    case "dispatched":
    case "on_site":
      return "In progress.";
    default:
      return `Ended (${task.status}); the requester's credential shows the details.`;
  }
}
