/**
 * Marks tasks paid (POST /api/task-payment for payments received out of band; the
 * on-chain checker and prepaid accounts use the same rules). The execution deadline
 * restarts from the payment (SLA 72 h / 24 h); a counter-offer paid is a counter-offer
 * accepted, so its amount becomes the price. A USDC payment issues the task's receipt (an invoice
 * of kind `usdc_receipt`, ./invoice-rows.ts) in the payment's transaction.
 */
import { getConfig } from "../../config.js";
import type { PaymentMethod, Urgency } from "../../db/schema/enums.js";
import type { Task } from "../../db/schema/index.js";
import { prefixedId } from "../../ids.js";
import type { RecordPaymentBody } from "./admin-schemas.js";
import {
  applyTransition,
  applyTransitionBatch,
  type BatchEntry,
  type BatchTransitionOptions,
  type BatchTransitionResult,
  type TaskChanges,
  type TransitionOptions,
  type TransitionResult,
} from "./apply-transition.js";
import { executionDeadline } from "./deadlines.js";
import { issueUsdcReceipts } from "./invoice-rows.js";

/** How a payment arrived. */
export interface PaymentRecord {
  method: PaymentMethod;
  network?: string | null;
  txHash?: string | null;
  note?: string | null;
}

/**
 * The payment record of an operator's POST /api/task-payment body: a transaction hash means
 * the USDC arrived on chain outside the checker (method `usdc`, with its network); without one
 * the payment came another way (method `manual`: e-transfer, cheque...). `note` is kept either way.
 */
export function outOfBandPayment(
  body: Pick<RecordPaymentBody, "tx_hash" | "network" | "note">,
): PaymentRecord {
  return {
    method: body.tx_hash ? "usdc" : "manual",
    network: body.network,
    txHash: body.tx_hash,
    note: body.note,
  };
}

/**
 * Records a payment received out of band (POST /api/task-payment): {@link recordPayment} of
 * {@link outOfBandPayment}(body) for `body.task_id`.
 * @throws DomainError NOT_FOUND, CONFLICT (not awaiting payment)
 */
export function recordOutOfBandPayment(body: RecordPaymentBody, now = new Date()): Promise<TransitionResult> {
  return recordPayment(body.task_id, outOfBandPayment(body), now);
}

/**
 * Column changes of a payment received at `now`; `deadline` is the execution deadline from `now`.
 * A USDC payment of a real (non-sandbox) task gets the id of its receipt (`receiptInvoiceId`),
 * which the same transaction then issues ({@link issueUsdcReceipts}).
 */
function paymentChanges(
  task: Pick<Task, "urgency" | "priceCad" | "counterOfferAmount" | "sandbox">,
  payment: PaymentRecord,
  now: Date,
  deadline: Date = executionDeadline(now, task.urgency),
): TaskChanges {
  return {
    paidAt: now,
    paymentMethod: payment.method,
    paymentNetwork: payment.network ?? null,
    paymentTxHash: payment.txHash ?? null,
    executionDeadline: deadline,
    priceCad: task.counterOfferAmount ?? task.priceCad,
    receiptInvoiceId: payment.method === "usdc" && !task.sandbox ? prefixedId("inv") : null,
  };
}

/** The receipts to issue for `applied` payments: those whose changes name a receipt. */
function receiptEntries(applied: readonly { taskId: string; changes: TaskChanges }[]) {
  return applied.flatMap(({ taskId, changes }) =>
    changes.receiptInvoiceId ? [{ taskId, invoiceId: changes.receiptInvoiceId }] : [],
  );
}

/**
 * Members of the `task.paid` event payload; `executionDeadline` is the new one, `receiptInvoiceId`
 * the USDC receipt issued (or null).
 */
function paymentPayload(
  executionDeadline: Date,
  payment: PaymentRecord,
  receiptInvoiceId: string | null | undefined,
): Record<string, unknown> {
  return {
    method: payment.method,
    receipt_invoice_id: receiptInvoiceId ?? null,
    network: payment.network ?? null,
    tx_hash: payment.txHash ?? null,
    note: payment.note ?? null,
    execution_deadline: executionDeadline.toISOString(),
  };
}

/**
 * Moves an awaiting-payment task to `paid`; a USDC payment issues the task's `usdc_receipt`
 * invoice in the same transaction. `after` runs in that transaction too once the task row is
 * updated (throwing rolls the payment back).
 * @throws DomainError NOT_FOUND, CONFLICT (not awaiting payment)
 */
export async function recordPayment(
  taskId: string,
  payment: PaymentRecord,
  now = new Date(),
  after?: TransitionOptions["after"],
): Promise<TransitionResult> {
  return applyTransition(taskId, "pay", {
    after: async (task, tx) => {
      await issueUsdcReceipts(
        tx,
        receiptEntries([{ taskId: task.id, changes: task }]),
        getConfig().TAX_REGISTERED,
        now,
      );
      await after?.(task, tx);
    },
    changes: (task) => paymentChanges(task, payment, now),
    payload: (t) => paymentPayload(t.executionDeadline, payment, t.receiptInvoiceId),
  });
}

/** One payment of a batch. */
export interface PaymentEntry extends BatchEntry {
  payment: PaymentRecord;
}

/**
 * Marks many tasks paid in one transaction (`applyTransitionBatch`): the payment checker's
 * path. The USDC receipts are issued in that transaction, one number per task (task id order):
 * a rolled-back batch gives its numbers back. Entries whose task is unknown or no longer awaits
 * payment come back in `refused` with its current status; `claim` (same transaction, before the updates) may drop entries,
 * e.g. transfers already recorded by a concurrent run.
 * @throws the database's errors (nothing is written then)
 */
export async function recordPayments<E extends PaymentEntry>(
  entries: readonly E[],
  now = new Date(),
  claim?: BatchTransitionOptions<E>["claim"],
): Promise<BatchTransitionResult<E>> {
  // One payment time for the batch, so one deadline per urgency (each costs ~0.1 ms of time-zone work).
  const deadlines = new Map<Urgency, Date>();
  const deadlineFor = (urgency: Urgency): Date => {
    let deadline = deadlines.get(urgency);
    if (!deadline) {
      deadline = executionDeadline(now, urgency);
      deadlines.set(urgency, deadline);
    }
    return deadline;
  };
  return applyTransitionBatch(entries, "pay", {
    ...(claim ? { claim } : {}),
    changes: (task, entry) => paymentChanges(task, entry.payment, now, deadlineFor(task.urgency)),
    payload: (_task, changes, entry) =>
      paymentPayload(changes.executionDeadline as Date, entry.payment, changes.receiptInvoiceId),
    after: (applied, tx) =>
      issueUsdcReceipts(
        tx,
        receiptEntries(applied.map((a) => ({ taskId: a.task.id, changes: a.changes }))),
        getConfig().TAX_REGISTERED,
        now,
      ),
  });
}
