/**
 * Paying tasks from prepaid accounts (docs/accounts.md "Accounts, billing and client login";
 * docs/api-conventions.md: `paid` by "prepaid balance deducted at approval").
 *
 * - Which account: the one whose e-mail is the contact of the key that submitted the
 *   task. Anonymous and sandbox tasks are never billed to an account.
 * - When: right after an operator approves the task (`approve`, not a counter-offer).
 *   The account must be `active`, not on hold for erasure (a pending request), with
 *   `available_balance_cad` (balance − live holds) covering the price after `discount_percent`.
 * - How: inside the approval's own transaction (lib/tasks/review-task.ts), a savepoint
 *   takes the `pay` transition of the task, locks the account row, re-checks the funds,
 *   writes the ledger charge and its invoice, and emits `billing.low_balance` when the
 *   charge lowers the spending level. The approval, the charge and all their events
 *   commit together or not at all. Two approvals
 *   racing for the last dollars serialize on the account lock: the second sees the
 *   first's charge, and its task stays `accepted_pending_payment` (USDC), with a
 *   `billing.payment_required` event. A task is charged at most once (unique index).
 * - A live pre-authorization of the task's key made before the task was submitted is
 *   consumed by the charge (its hold is released into the charge).
 */
import { and, desc, eq, gte, isNull, lte, sql } from "drizzle-orm";
import { erasurePending, findAccountForKey, lockAccount } from "../accounts/store/find-account.js";
import { getConfig } from "../config.js";
import { recordAudit } from "../db/audit.js";
import type { Tx } from "../db/client.js";
import { invoices, ledgerEntries, preauthorizations, type Task } from "../db/schema/index.js";
import { prefixedId } from "../ids.js";
import { applyDiscount, fromCents, toCents } from "../money.js";
import { applyTransition, type TransitionResult } from "../tasks/state/apply-transition.js";
import { executionDeadline } from "../tasks/state/deadlines.js";
import { taxesOn } from "../taxes.js";
import { accountBalance, spendingLevel } from "./balance.js";
import { issueCreditNote } from "./credit-notes.js";
import { emitBillingEvent, emitLowBalanceIfWorse } from "./events.js";
import { createInvoice } from "./invoices.js";

/** A task's ledger entry: its charge (negative) or a refund of it (positive), with its invoice. */
interface TaskLedgerEntry {
  accountId: string;
  kind: "charge" | "refund";
  amountCad: number;
  taskId: string;
  invoiceId: string;
  description: string;
}

/**
 * Writes `entry` in `tx` at `now` with its audit row (`ledger.charge` or `ledger.refund`, naming the
 * account, the signed amount and the invoice). @returns the entry's id (`le_…`)
 */
async function recordTaskLedgerEntry(tx: Tx, entry: TaskLedgerEntry, now: Date): Promise<string> {
  const id = prefixedId("le");
  await tx.insert(ledgerEntries).values({ id, ...entry, createdAt: now });
  await recordAudit(tx, {
    action: `ledger.${entry.kind}`,
    taskId: entry.taskId,
    targetKind: "ledger_entry",
    targetId: id,
    details: { account_id: entry.accountId, amount_cad: entry.amountCad, invoice_id: entry.invoiceId },
  });
  return id;
}

/** Thrown inside the pay transaction when the funds are short; rolls it back. */
class InsufficientFunds extends Error {
  constructor(
    readonly requiredCad: number,
    readonly availableCad: number,
  ) {
    super("insufficient funds");
  }
}

/** What a charge wrote. */
export interface ChargeResult {
  accountId: string;
  amountCad: number;
  ledgerEntryId: string;
  invoiceId: string;
}

/**
 * Charges `task` (locked by the caller's transition) to `accountId` inside `tx`.
 * @throws InsufficientFunds (internal) when the account is not active or short of funds
 */
async function chargeInTx(tx: Tx, accountId: string, task: Task, now: Date): Promise<ChargeResult> {
  const account = await lockAccount(tx, accountId);
  const listPrice = task.counterOfferAmount ?? task.priceCad ?? task.estimateCad ?? 0;
  const subtotal = applyDiscount(listPrice, account.discountPercent);
  // Registered for the sales taxes: GST and QST on the discounted price, once per invoice (docs/taxes.md).
  const taxes = getConfig().TAX_REGISTERED ? taxesOn(toCents(subtotal), now) : null;
  const amount = taxes ? fromCents(taxes.total) : subtotal;
  // A live hold this key took before submitting the task is released into the charge.
  if (task.apiKeyId) {
    const [hold] = await tx
      .select({ id: preauthorizations.id })
      .from(preauthorizations)
      .where(
        and(
          eq(preauthorizations.accountId, account.id),
          eq(preauthorizations.apiKeyId, task.apiKeyId),
          isNull(preauthorizations.consumedAt),
          lte(preauthorizations.createdAt, task.createdAt),
          gte(preauthorizations.validUntil, task.createdAt),
        ),
      )
      .orderBy(desc(preauthorizations.createdAt))
      .limit(1);
    if (hold) {
      await tx
        .update(preauthorizations)
        .set({ consumedAt: now, consumedByTaskId: task.id })
        .where(eq(preauthorizations.id, hold.id));
    }
  }
  const before = await accountBalance(account.id, tx, now);
  if (account.status !== "active" || toCents(before.available_balance_cad) < toCents(amount)) {
    throw new InsufficientFunds(amount, before.available_balance_cad);
  }
  const lines = [
    {
      description: `${task.serviceType} task ${task.id}`,
      amount_cad: listPrice,
      quantity: 1,
      unit_cad: listPrice,
    },
  ];
  if (subtotal !== listPrice) {
    lines.push({
      description: `Account discount ${account.discountPercent}%`,
      amount_cad: fromCents(toCents(subtotal) - toCents(listPrice)),
      quantity: 1,
      unit_cad: fromCents(toCents(subtotal) - toCents(listPrice)),
    });
  }
  const invoiceId = await createInvoice(
    tx,
    { accountId: account.id, taskId: task.id, kind: "task_charge", amountCad: amount, lines, taxes },
    now,
  );
  const ledgerEntryId = await recordTaskLedgerEntry(
    tx,
    {
      accountId: account.id,
      kind: "charge",
      amountCad: -amount,
      taskId: task.id,
      invoiceId,
      description: `${task.serviceType} task ${task.id}`,
    },
    now,
  );
  await emitLowBalanceIfWorse(
    tx,
    account,
    task.apiKeyId,
    before.available_balance_cad,
    amount,
    { reason: "task_charge", charged_task_id: task.id },
    now,
  );
  return { accountId: account.id, amountCad: amount, ledgerEntryId, invoiceId };
}

/**
 * After an approval, inside its transaction `tx`: pays the task from the prepaid account
 * that `findAccountForKey` gives for its submitting key, when that account is active and
 * funded; otherwise leaves it awaiting USDC payment. The charge runs in a savepoint: a
 * shortfall found under the account lock undoes it alone and writes
 * `billing.payment_required` in `tx` instead. The caller commits `tx` (and kicks the outbox).
 * @returns the latest transition: the `pay` one when charged, else `approved`.
 * @throws the database's errors (the caller's transaction then rolls back as a whole).
 */
export async function payFromAccountIfFunded(
  approved: TransitionResult,
  tx: Tx,
  now = new Date(),
): Promise<TransitionResult> {
  const task = approved.task;
  if (task.sandbox || task.status !== "accepted_pending_payment" || !task.apiKeyId) return approved;
  const account = await findAccountForKey(task.apiKeyId, tx);
  // An account on hold for erasure (pending request) is charged nothing: the task awaits USDC.
  if (account?.status !== "active" || (await erasurePending(tx, account.id))) return approved;
  let charge: ChargeResult | undefined;
  try {
    return await applyTransition(
      task.id,
      "pay",
      {
        changes: async (locked, tx) => {
          charge = await chargeInTx(tx, account.id, locked, now);
          return {
            paidAt: now,
            paymentMethod: "account",
            accountId: account.id,
            paymentNetwork: null,
            paymentTxHash: null,
            executionDeadline: executionDeadline(now, locked.urgency),
            priceCad: locked.counterOfferAmount ?? locked.priceCad,
          };
        },
        payload: (t) => ({
          method: "account",
          account_id: account.id,
          amount_charged_cad: charge?.amountCad,
          invoice_id: charge?.invoiceId,
          execution_deadline: t.executionDeadline.toISOString(),
        }),
      },
      tx,
    );
  } catch (error) {
    if (!(error instanceof InsufficientFunds)) throw error;
    await emitBillingEvent(
      tx,
      "billing.payment_required",
      { accountId: account.id, apiKeyId: task.apiKeyId },
      {
        agent_id: account.email,
        reason: "insufficient_funds",
        task_id: task.id,
        required_cad: error.requiredCad,
        available_balance_cad: error.availableCad,
        spending_level: spendingLevel(account.status, error.availableCad),
        suggestion: "Pay the task in USDC (see its payment details) or ask the operator for a deposit",
      },
      now,
    );
    return approved;
  }
}

/** The prepaid charge of task `taskId` in `tx` (ledger row and its invoice's taxes), or undefined. */
async function chargeOf(tx: Tx, taskId: string) {
  const [charge] = await tx
    .select({
      accountId: ledgerEntries.accountId,
      amount: ledgerEntries.amountCad,
      invoiceId: ledgerEntries.invoiceId,
      subtotal: invoices.subtotalCad,
      gst: invoices.gstCad,
      qst: invoices.qstCad,
    })
    .from(ledgerEntries)
    .leftJoin(invoices, eq(invoices.id, ledgerEntries.invoiceId))
    .where(and(eq(ledgerEntries.taskId, taskId), eq(ledgerEntries.kind, "charge")));
  return charge;
}

/**
 * What task `taskId` was charged to its prepaid account, CAD (the total with taxes when the
 * operator is registered), read in `tx`; null when it has no charge.
 */
export async function accountChargeCad(tx: Tx, taskId: string): Promise<number | null> {
  const charge = await chargeOf(tx, taskId);
  return charge ? -charge.amount : null;
}

/**
 * Refunds an account-paid task's charge to its account inside `tx` (cancellation
 * before dispatch: full refund, docs/api-conventions.md; after dispatch: the amount the operator
 * settles, `maxCad`). Writes the ledger refund and a refund invoice (credit note); returns the
 * amount refunded, CAD (what is left of the charge, capped by `maxCad`), with the credit note's
 * id, or null when the task had no charge or nothing is left to refund.
 */
export async function refundTaskToAccount(
  tx: Tx,
  task: Pick<Task, "id">,
  reason: string,
  now = new Date(),
  maxCad?: number,
): Promise<{ amountCad: number; invoiceId: string } | null> {
  const charge = await chargeOf(tx, task.id);
  if (!charge) return null;
  await lockAccount(tx, charge.accountId);
  const [refunded] = await tx
    .select({ sum: sql<string>`coalesce(sum(${ledgerEntries.amountCad}), 0)` })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.taskId, task.id), eq(ledgerEntries.kind, "refund")));
  const leftCents = -toCents(charge.amount) - toCents(Number(refunded?.sum ?? 0));
  const amountCents = maxCad === undefined ? leftCents : Math.min(leftCents, toCents(maxCad));
  if (amountCents <= 0) return null;
  const amount = fromCents(amountCents);
  // The credit note reverses the charge's taxes in proportion to the amount refunded (docs/taxes.md).
  const invoiceId = await issueCreditNote(
    tx,
    {
      id: charge.invoiceId!,
      accountId: charge.accountId,
      amountCad: -charge.amount,
      subtotalCad: charge.subtotal,
      gstCad: charge.gst,
      qstCad: charge.qst,
    },
    { taskId: task.id, amountCents, reason },
    now,
  );
  await recordTaskLedgerEntry(
    tx,
    {
      accountId: charge.accountId,
      kind: "refund",
      amountCad: amount,
      taskId: task.id,
      invoiceId,
      description: `Refund: ${reason} (task ${task.id})`,
    },
    now,
  );
  return { amountCad: amount, invoiceId };
}
