import { sql } from "drizzle-orm";
import { type AnyPgColumn, index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { clientAccounts } from "./accounts-and-keys.js";
import { cad, exchangeRate, timestamptz, usdcMicro } from "./columns.js";
import type { InvoiceKind } from "./enums.js";
import { tasks } from "./tasks.js";

/** One line of an invoice. */
export interface InvoiceLine {
  description: string;
  /** Line total, CAD. */
  amount_cad: number;
  quantity?: number;
  /** Unit price, CAD. */
  unit_cad?: number;
}

/**
 * Invoices (deposits, task charges, USDC receipts, credit notes); immutable once issued. A USDC
 * receipt belongs to the account the task's submitting key is linked to, or to none (a key
 * without account, or an anonymous submission): `account_id` is then null.
 */
export const invoices = pgTable(
  "invoices",
  {
    /** `inv_<id>`. */
    id: text("id").primaryKey(),
    /** The account billed; null only on a USDC receipt (and its credit notes) of a task with no account. */
    accountId: text("account_id").references(() => clientAccounts.id, { onDelete: "restrict" }),
    taskId: text("task_id").references(() => tasks.id, { onDelete: "set null" }),
    kind: text("kind").$type<InvoiceKind>().notNull(),
    /** Invoice total, CAD (positive; `kind` says which way it goes). */
    amountCad: cad("amount_cad").notNull(),
    lines: jsonb("lines").$type<InvoiceLine[]>().notNull(),
    issuedAt: timestamptz("issued_at").notNull().defaultNow(),
    /**
     * Sequential number without gaps per year, `YYYY-NNNNNN` (e.g. `2026-000042`), allocated from
     * `invoice_sequences` in the invoice's transaction; null on invoices issued before numbering.
     */
    number: text("number"),
    /** Taxable subtotal, CAD; null when no tax was charged (small supplier, or before taxes). */
    subtotalCad: cad("subtotal_cad"),
    /** GST charged (or reversed, on a credit note), CAD; null when none. */
    gstCad: cad("gst_cad"),
    /** QST charged (or reversed), CAD; null when none. */
    qstCad: cad("qst_cad"),
    /** USDC receipt: network of the paying transfer; credit note of a receipt: of the refund. */
    paymentNetwork: text("payment_network"),
    /** USDC receipt: the paying transaction (0x hex); credit note of a receipt: the refund's, when given. */
    paymentTxHash: text("payment_tx_hash"),
    /** USDC receipt: the exact amount paid, micro-USDC. */
    usdcMicro: usdcMicro("usdc_micro"),
    /** USDC receipt: the rate of the quote, USD (USDC) per CAD (e.g. 0.71234567). */
    exchangeRate: exchangeRate("exchange_rate"),
    /** Credit note: the invoice it credits (the charge or the USDC receipt). */
    refersToInvoiceId: text("refers_to_invoice_id").references((): AnyPgColumn => invoices.id, {
      onDelete: "restrict",
    }),
  },
  (t) => [
    index("invoices_account_id_issued_at_idx").on(t.accountId, t.issuedAt),
    uniqueIndex("invoices_number_uq").on(t.number),
    /** One receipt per USDC-paid task. */
    uniqueIndex("invoices_usdc_receipt_task_uq").on(t.taskId).where(sql`kind = 'usdc_receipt'`),
  ],
);

/**
 * The last invoice number given per calendar year (Quebec time). Incremented with
 * `insert … on conflict do update … returning` in the invoice's transaction: the row lock orders
 * concurrent invoices, and a rolled-back invoice gives its number back, so numbers have no gaps.
 */
export const invoiceSequences = pgTable("invoice_sequences", {
  year: integer("year").primaryKey(),
  lastNumber: integer("last_number").notNull(),
});

export type Invoice = typeof invoices.$inferSelect;
export type NewInvoice = typeof invoices.$inferInsert;
