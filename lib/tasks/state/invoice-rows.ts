/**
 * Invoice rows and their numbers, in the caller's transaction (docs/taxes.md "Invoice numbers",
 * "USDC receipts"). They live in the task state layer because a USDC payment issues its receipt
 * in the payment's own transaction (`recordPayment`, and the checker's `recordPayments` batch),
 * which the state layer runs; billing (lib/billing/invoices.ts) re-exports `createInvoice` for
 * the other invoices (deposits, charges, credit notes).
 *
 * - Numbers: `YYYY-NNNNNN` per calendar year (Quebec time), from `invoice_sequences`, incremented
 *   in the invoice's transaction: a rolled-back transaction gives its numbers back.
 * - USDC receipt of a task: subtotal the task's price (CAD), GST and QST when the USDC amount
 *   asked included them (`receiptTaxed`), total the price with taxes; the payment facts: network,
 *   transaction hash, exact amount (micro-USDC) and the quote's rate (USD per CAD). Bill-to: the
 *   account the submitting key is linked to, or none (`account_id` null).
 */
import { eq, sql } from "drizzle-orm";
import { bulkInsert, jsonList } from "../../db/bulk.js";
import type { Tx } from "../../db/client.js";
import type { InvoiceKind } from "../../db/schema/enums.js";
import {
  apiKeys,
  type InvoiceLine,
  invoiceSequences,
  invoices,
  type Task,
  tasks,
} from "../../db/schema/index.js";
import { prefixedId } from "../../ids.js";
import { cadToMicroUsdc, fromCents, toCents } from "../../money.js";
import { quebecDate, type TaxCents, taxesOn } from "../../taxes.js";
import { MAX_UNIQUENESS_BUMP } from "./amount-reservations.js";

/**
 * `count` consecutive invoice numbers of `at`'s year (Quebec time) in `tx`, in order:
 * `YYYY-NNNNNN`, counting from 1 each year. The sequence row stays locked until `tx` ends, so
 * numbers follow commit order without gaps.
 * @param count ≥ 1
 */
export async function nextInvoiceNumbers(tx: Tx, at: Date, count: number): Promise<string[]> {
  const year = Number(quebecDate(at).slice(0, 4));
  const [row] = await tx
    .insert(invoiceSequences)
    .values({ year, lastNumber: count })
    .onConflictDoUpdate({
      target: invoiceSequences.year,
      set: { lastNumber: sql`${invoiceSequences.lastNumber} + ${count}` },
    })
    .returning({ n: invoiceSequences.lastNumber });
  const first = row!.n - count + 1;
  return Array.from({ length: count }, (_, i) => `${year}-${String(first + i).padStart(6, "0")}`);
}

/** The next invoice number of `at`'s year in `tx` ({@link nextInvoiceNumbers} of one). */
export async function nextInvoiceNumber(tx: Tx, at: Date): Promise<string> {
  return (await nextInvoiceNumbers(tx, at, 1))[0]!;
}

/** Payment facts printed on a USDC receipt or on the credit note of one. */
export interface InvoicePaymentFacts {
  network?: string | null;
  txHash?: string | null;
  /** Micro-USDC. */
  usdcMicro?: bigint | null;
  /** USD (USDC) per CAD. */
  exchangeRate?: number | null;
}

/** What an invoice says; `amountCad` is its positive total (taxes included), CAD. */
export interface InvoiceInput {
  /** Preset id (`inv_…`), e.g. one already written on the task; else a new one. */
  id?: string;
  /** Null only for a USDC receipt (or its credit note) of a task with no account. */
  accountId: string | null;
  taskId?: string | null;
  kind: InvoiceKind;
  amountCad: number;
  lines: InvoiceLine[];
  /** Taxes carried, cents; null when none. */
  taxes?: TaxCents | null;
  payment?: InvoicePaymentFacts;
  /** Credit note: the invoice credited. */
  refersToInvoiceId?: string | null;
}

/** The row of `input` numbered `number`. */
function invoiceRow(input: InvoiceInput, number: string, now: Date): typeof invoices.$inferInsert {
  const taxes = input.taxes ?? null;
  return {
    id: input.id ?? prefixedId("inv"),
    accountId: input.accountId,
    taskId: input.taskId ?? null,
    kind: input.kind,
    amountCad: input.amountCad,
    lines: input.lines,
    issuedAt: now,
    number,
    subtotalCad: taxes ? fromCents(taxes.subtotal) : null,
    gstCad: taxes ? fromCents(taxes.gst) : null,
    qstCad: taxes ? fromCents(taxes.qst) : null,
    paymentNetwork: input.payment?.network ?? null,
    paymentTxHash: input.payment?.txHash ?? null,
    usdcMicro: input.payment?.usdcMicro ?? null,
    exchangeRate: input.payment?.exchangeRate ?? null,
    refersToInvoiceId: input.refersToInvoiceId ?? null,
  };
}

/**
 * Writes an invoice in `tx` with the next number of its year. Returns its id.
 * @throws the database's errors (e.g. a second receipt for one task: unique index)
 */
export async function createInvoice(tx: Tx, input: InvoiceInput, now = new Date()): Promise<string> {
  const row = invoiceRow(input, await nextInvoiceNumber(tx, now), now);
  await tx.insert(invoices).values(row);
  return row.id;
}

/**
 * Whether the USDC amount a task was asked included GST and QST: the amount asked is the CAD
 * total (with taxes when registered at approval, lib/tasks/review-task.ts) at the quote's rate,
 * plus at most MAX_UNIQUENESS_BUMP micro-USDC to make it unique. When the two candidate totals
 * are too close to tell apart (prices of a few cents), `registered` (the current setting) decides.
 */
export function receiptTaxed(
  task: Pick<Task, "priceCad" | "paymentUsdcMicro" | "exchangeRate" | "reviewedAt">,
  registered: boolean,
  now: Date,
): boolean {
  const price = task.priceCad ?? 0;
  if (task.paymentUsdcMicro === null || task.exchangeRate === null) return registered;
  const plain = cadToMicroUsdc(price, task.exchangeRate);
  const taxed = cadToMicroUsdc(
    fromCents(taxesOn(toCents(price), task.reviewedAt ?? now).total),
    task.exchangeRate,
  );
  if (taxed <= plain + BigInt(MAX_UNIQUENESS_BUMP)) return registered;
  return task.paymentUsdcMicro >= taxed;
}

/** The task columns a receipt reads (narrow: whole rows cost most of a 1,000-task batch on PGlite). */
const RECEIPT_COLUMNS = {
  id: tasks.id,
  serviceType: tasks.serviceType,
  priceCad: tasks.priceCad,
  reviewedAt: tasks.reviewedAt,
  exchangeRate: tasks.exchangeRate,
  paymentUsdcMicro: tasks.paymentUsdcMicro,
  paymentNetwork: tasks.paymentNetwork,
  paymentTxHash: tasks.paymentTxHash,
};
type ReceiptTask = Pick<Task, keyof typeof RECEIPT_COLUMNS>;

/** A task to give a USDC receipt to, with the invoice id already written on it. */
export interface ReceiptEntry {
  taskId: string;
  invoiceId: string;
}

/**
 * Issues the `usdc_receipt` of each of `entries` (tasks just paid in USDC, their row updated in
 * `tx`) in `tx`: one number per task, in task id order, from one increment of the year's counter.
 * @param registered TAX_REGISTERED, for {@link receiptTaxed}
 */
export async function issueUsdcReceipts(
  tx: Tx,
  entries: readonly ReceiptEntry[],
  registered: boolean,
  now: Date,
): Promise<void> {
  if (entries.length === 0) return;
  const sorted = [...entries].sort((a, b) => (a.taskId < b.taskId ? -1 : 1));
  const rows = await tx
    .select({ task: RECEIPT_COLUMNS, accountId: apiKeys.accountId })
    .from(tasks)
    .leftJoin(apiKeys, eq(apiKeys.id, tasks.apiKeyId))
    .where(sql`${tasks.id} in ${jsonList(sorted.map((e) => e.taskId))}`);
  const byId = new Map(rows.map((r) => [r.task.id, r]));
  const numbers = await nextInvoiceNumbers(tx, now, sorted.length);
  const values = sorted.map((entry, i) => {
    const found = byId.get(entry.taskId);
    if (!found) throw new Error(`issueUsdcReceipts: no task ${entry.taskId}`);
    return invoiceRow(
      usdcReceipt(found.task, found.accountId, entry.invoiceId, registered, now),
      numbers[i]!,
      now,
    );
  });
  await bulkInsert(tx, invoices, values);
}

/** The receipt of `task` (paid in USDC at `now`) billed to `accountId`. */
function usdcReceipt(
  task: ReceiptTask,
  accountId: string | null,
  invoiceId: string,
  registered: boolean,
  now: Date,
): InvoiceInput {
  const price = task.priceCad ?? 0;
  const taxes = receiptTaxed(task, registered, now) ? taxesOn(toCents(price), task.reviewedAt ?? now) : null;
  return {
    id: invoiceId,
    accountId,
    taskId: task.id,
    kind: "usdc_receipt",
    amountCad: taxes ? fromCents(taxes.total) : price,
    lines: [
      { description: `${task.serviceType} task ${task.id}`, amount_cad: price, quantity: 1, unit_cad: price },
    ],
    taxes,
    payment: {
      network: task.paymentNetwork,
      txHash: task.paymentTxHash,
      usdcMicro: task.paymentUsdcMicro,
      exchangeRate: task.exchangeRate,
    },
  };
}
