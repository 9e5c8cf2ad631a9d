import { sql } from "drizzle-orm";
import { index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { apiKeys, clientAccounts } from "./accounts-and-keys.js";
import { cad, createdAt } from "./columns.js";
import type { LedgerEntryKind } from "./enums.js";
import { invoices } from "./invoices.js";
import { tasks } from "./tasks.js";

/**
 * The prepaid-account ledger, append-only. An account's balance is `sum(amount_cad)` of
 * its entries; it is never stored. Corrections are new `adjustment` entries, never edits.
 */
export const ledgerEntries = pgTable(
  "ledger_entries",
  {
    /** `le_<id>`. */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => clientAccounts.id, { onDelete: "restrict" }),
    kind: text("kind").$type<LedgerEntryKind>().notNull(),
    /** Signed CAD: credits (deposit, refund) positive, debits (charge) negative. */
    amountCad: cad("amount_cad").notNull(),
    taskId: text("task_id").references(() => tasks.id, { onDelete: "set null" }),
    invoiceId: text("invoice_id").references(() => invoices.id, { onDelete: "set null" }),
    description: text("description"),
    /** Admin key that recorded it (deposits, adjustments); null when the system did. */
    createdByKeyId: text("created_by_key_id").references(() => apiKeys.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [
    /**
     * An account's entries newest first (`created_at desc, id desc`, GET /api/billing
     * transactions), and, carrying `amount_cad`, its balance and period totals read from the
     * index alone (index-only scans; issue 32 item 6).
     */
    index("ledger_entries_account_created_id_amount_idx").on(t.accountId, t.createdAt, t.id, t.amountCad),
    index("ledger_entries_task_id_idx").on(t.taskId),
    /** A task is charged at most once. */
    uniqueIndex("ledger_entries_task_charge_uq").on(t.taskId).where(sql`kind = 'charge'`),
  ],
);

export type LedgerEntry = typeof ledgerEntries.$inferSelect;
export type NewLedgerEntry = typeof ledgerEntries.$inferInsert;
