import { index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
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
  },
  (t) => [index("invoices_account_id_issued_at_idx").on(t.accountId, t.issuedAt)],
);

export type Invoice = typeof invoices.$inferSelect;
export type NewInvoice = typeof invoices.$inferInsert;
