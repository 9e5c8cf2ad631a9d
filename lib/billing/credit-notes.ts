/**
 * Credit notes (invoices of kind `refund`): one per refund of a prepaid charge (credited to the
 * account, lib/billing/charge-task.ts) or of a task paid in USDC (sent back on chain by the
 * operator, POST /api/task-refund). A credit note names the invoice it credits (`refers_to`),
 * reverses its taxes in proportion (lib/taxes.ts `reverseTaxes`; docs/taxes.md "Credit notes")
 * and, for USDC, carries the network and the refund's transaction hash.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Tx } from "../db/client.js";
import { type Invoice, invoices, type Task } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { fromCents, toCents } from "../money.js";
import { reverseTaxesLeft, type TaxCents } from "../taxes.js";
import { createInvoice } from "./invoices.js";

/** The invoice a credit note credits: what its reversal needs. */
export type CreditedInvoice = Pick<
  Invoice,
  "id" | "accountId" | "amountCad" | "subtotalCad" | "gstCad" | "qstCad"
>;

/** The taxes `credited` carried, in cents, or null when it carried none. */
function taxesOf(credited: CreditedInvoice): TaxCents | null {
  if (credited.subtotalCad === null || credited.gstCad === null || credited.qstCad === null) return null;
  return {
    subtotal: toCents(credited.subtotalCad),
    gst: toCents(credited.gstCad),
    qst: toCents(credited.qstCad),
    total: toCents(credited.amountCad),
  };
}

/**
 * Writes in `tx` the credit note of `amountCents` (taxes included) of `credited` for task `taskId`:
 * its taxes reversed in proportion (round(G × R / T), round(Q × R / T)), the rest the subtotal;
 * the note that credits the last of the invoice reverses exactly the taxes left (lib/taxes.ts
 * `reverseTaxesLeft`).
 * `refund` gives a USDC refund's network and transaction; `soFar`, what the earlier credit notes
 * of `credited` reversed, when the caller already read it in `tx` (else it is read here).
 * Returns the credit note's id.
 * @param amountCents 0 < amount ≤ credited total
 * @throws RangeError when the amount exceeds the credited total
 */
export async function issueCreditNote(
  tx: Tx,
  credited: CreditedInvoice,
  input: {
    taskId: string;
    amountCents: number;
    reason: string;
    refund?: { network: string | null; txHash: string | null };
    soFar?: CreditedSoFar;
  },
  now = new Date(),
): Promise<string> {
  const original = taxesOf(credited);
  const taxes = original
    ? reverseTaxesLeft(original, input.soFar ?? (await creditedSoFar(tx, credited)), input.amountCents)
    : null;
  const amount = fromCents(input.amountCents);
  return createInvoice(
    tx,
    {
      accountId: credited.accountId,
      taskId: input.taskId,
      kind: "refund",
      amountCad: amount,
      lines: [
        {
          description: `Refund: ${input.reason} (task ${input.taskId})`,
          amount_cad: amount,
          quantity: 1,
          unit_cad: amount,
        },
      ],
      taxes,
      refersToInvoiceId: credited.id,
      ...(input.refund ? { payment: { network: input.refund.network, txHash: input.refund.txHash } } : {}),
    },
    now,
  );
}

/** What the credit notes of an invoice reversed: totals and taxes, cents. */
export type CreditedSoFar = { total: number; gst: number; qst: number };

/** What the credit notes referring to `credited` already reversed in `tx`. */
async function creditedSoFar(tx: Tx, credited: CreditedInvoice): Promise<CreditedSoFar> {
  const [row] = await tx
    .select({
      total: sql<string>`coalesce(sum(${invoices.amountCad}), 0)`,
      gst: sql<string>`coalesce(sum(${invoices.gstCad}), 0)`,
      qst: sql<string>`coalesce(sum(${invoices.qstCad}), 0)`,
    })
    .from(invoices)
    .where(and(eq(invoices.refersToInvoiceId, credited.id), eq(invoices.kind, "refund")));
  return {
    total: toCents(Number(row?.total ?? 0)),
    gst: toCents(Number(row?.gst ?? 0)),
    qst: toCents(Number(row?.qst ?? 0)),
  };
}

/**
 * The USDC receipt of `task` in `tx`, or null when it has none (not paid in USDC, sandbox, or paid
 * before receipts were issued).
 */
export async function findUsdcReceipt(tx: Tx, task: Pick<Task, "receiptInvoiceId">): Promise<Invoice | null> {
  if (!task.receiptInvoiceId) return null;
  const [row] = await tx.select().from(invoices).where(eq(invoices.id, task.receiptInvoiceId));
  return row ?? null;
}

/**
 * Credits `amountCad` of `receipt` (the USDC receipt of `task`) in `tx`: the credit note of a USDC
 * refund sent by the operator on the payment's network, with its transaction hash when given.
 * Returns the credit note's id.
 * @throws DomainError VALIDATION_ERROR (`amount_cad`: more than is left to credit of the receipt)
 */
export async function creditUsdcReceipt(
  tx: Tx,
  task: Pick<Task, "id" | "paymentNetwork">,
  receipt: Invoice,
  amountCad: number,
  refundTxHash: string | null,
  now = new Date(),
): Promise<string> {
  const soFar = await creditedSoFar(tx, receipt);
  const left = toCents(receipt.amountCad) - soFar.total;
  const amountCents = toCents(amountCad);
  if (amountCents <= 0 || amountCents > left) {
    throw new DomainError(
      "VALIDATION_ERROR",
      `amount_cad must be above 0 and at most what is left of the USDC receipt ${receipt.number} (${fromCents(left)} CAD)`,
      { field: "amount_cad" },
    );
  }
  return issueCreditNote(
    tx,
    receipt,
    {
      taskId: task.id,
      amountCents,
      reason: `USDC refund of receipt ${receipt.number}`,
      refund: { network: task.paymentNetwork, txHash: refundTxHash },
      soFar,
    },
    now,
  );
}
