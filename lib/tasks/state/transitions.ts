/**
 * The task lifecycle as one transition table (docs/api-conventions.md "Task status values and
 * transitions"). Every state change names an action; the table says from which
 * statuses it is allowed, the status it leads to and the event it emits. Nothing
 * else in the code decides whether a status may change.
 */
import { OPEN_PAYMENT_STATUSES, type TaskStatus } from "../../db/schema/enums.js";
import type { TaskEventType } from "../../db/schema/event-registry.js";
import type { Task } from "../../db/schema/index.js";

/** What can happen to a task. */
export type TaskAction =
  | "approve"
  | "counter_offer"
  | "reject"
  | "pay"
  | "expire"
  | "cancel"
  | "dispatch"
  | "arrive"
  | "complete"
  | "fail";

/** One row of the table. */
export interface Transition {
  action: TaskAction;
  from: readonly TaskStatus[];
  to: TaskStatus;
  event: TaskEventType;
}

const AWAITING_PAYMENT = ["accepted_pending_payment", "counter_offered"] as const;
const PAID_OR_LATER = ["paid", "dispatched", "on_site"] as const;

/** The lifecycle (docs/api-conventions.md), plus cancellation after payment (refund request for the operator). */
export const TRANSITIONS: readonly Transition[] = [
  { action: "approve", from: ["received"], to: "accepted_pending_payment", event: "task.accepted" },
  { action: "counter_offer", from: ["received"], to: "counter_offered", event: "task.counter_offered" },
  { action: "reject", from: ["received"], to: "rejected", event: "task.rejected" },
  { action: "pay", from: AWAITING_PAYMENT, to: "paid", event: "task.paid" },
  { action: "expire", from: AWAITING_PAYMENT, to: "payment_expired", event: "task.payment_expired" },
  {
    action: "cancel",
    from: ["received", ...AWAITING_PAYMENT, ...PAID_OR_LATER],
    to: "cancelled",
    event: "task.cancelled",
  },
  { action: "dispatch", from: ["paid"], to: "dispatched", event: "task.dispatched" },
  { action: "arrive", from: ["dispatched"], to: "on_site", event: "task.on_site" },
  { action: "complete", from: PAID_OR_LATER, to: "completed", event: "task.completed" },
  { action: "fail", from: PAID_OR_LATER, to: "failed", event: "task.failed" },
];

/** Statuses after which nothing happens (docs/api-conventions.md). */
/**
 * Whether `task` waits for its payment: a real (not sandbox) task in an open payment status
 * (`accepted_pending_payment`, `counter_offered`) with its exact USDC amount. A sandbox task's
 * simulated payment happens by itself.
 */
export function awaitsPayment<T extends Pick<Task, "sandbox" | "status" | "paymentUsdcMicro">>(
  task: T,
): task is T & { paymentUsdcMicro: NonNullable<Task["paymentUsdcMicro"]> } {
  return (
    !task.sandbox &&
    task.paymentUsdcMicro !== null &&
    (OPEN_PAYMENT_STATUSES as readonly TaskStatus[]).includes(task.status)
  );
}

export const TERMINAL_STATUSES: readonly TaskStatus[] = [
  "completed",
  "rejected",
  "failed",
  "payment_expired",
  "cancelled",
];

/** True for a terminal status. */
export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** The transition of `action` from `status`, or undefined when not allowed. */
export function findTransition(action: TaskAction, status: TaskStatus): Transition | undefined {
  return TRANSITIONS.find((t) => t.action === action && t.from.includes(status));
}

/** Actions allowed from `status` (for consoles and error messages). */
export function allowedActions(status: TaskStatus): TaskAction[] {
  return TRANSITIONS.filter((t) => t.from.includes(status)).map((t) => t.action);
}
