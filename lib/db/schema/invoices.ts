import { index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { clientAccounts } from "./accounts-and-keys.js";
import { cad, timestamptz } from "./columns.js";
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

/** Invoices of client accounts (deposits, task charges, refunds); immutable once issued. */
export const invoices = pgTable(
  "invoices",
  {
    /** `inv_<id>`. */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => clientAccounts.id, { onDelete: "restrict" }),
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
  },
  (t) => [
    index("invoices_account_id_issued_at_idx").on(t.accountId, t.issuedAt),
    uniqueIndex("invoices_number_uq").on(t.number),
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
