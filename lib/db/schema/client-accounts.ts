import { sql } from "drizzle-orm";
import { type AnyPgColumn, check, index, numeric, pgTable, text } from "drizzle-orm/pg-core";
import { apiKeys } from "./api-keys.js";
import { createdAt, timestamptz, updatedAt } from "./columns.js";
import type { AccountStatus, Lang } from "./enums.js";

/**
 * Prepaid CAD client accounts. The balance is never stored: it is the sum of the
 * account's `ledger_entries`. Writers that debit lock the account row (`FOR UPDATE`)
 * first, so two charges cannot both spend the same balance.
 */
export const clientAccounts = pgTable(
  "client_accounts",
  {
    /** `acct_<id>`. */
    id: text("id").primaryKey(),
    /** Organization id returned at login (`org_id`); analytics group by it. */
    orgId: text("org_id").notNull().unique("client_accounts_org_id_uq"),
    contactName: text("contact_name").notNull(),
    /** Login and billing e-mail, stored lowercase. */
    email: text("email").notNull().unique("client_accounts_email_uq"),
    /** Password hash (e.g. scrypt, with its parameters); null for accounts created with a key. */
    passwordHash: text("password_hash"),
    /** Last password change (reset): client JWTs issued before it are refused. */
    passwordChangedAt: timestamptz("password_changed_at"),
    companyName: text("company_name"),
    phone: text("phone"),
    addressLine1: text("address_line1"),
    addressLine2: text("address_line2"),
    city: text("city"),
    province: text("province").notNull().default("QC"),
    postalCode: text("postal_code"),
    lang: text("lang").$type<Lang>().notNull().default("en"),
    tosAcceptedAt: timestamptz("tos_accepted_at"),
    /** `pending_deposit` until the operator records a funded deposit. */
    status: text("status").$type<AccountStatus>().notNull().default("pending_deposit"),
    /** Discount applied to task charges, percent (0 to 100). */
    discountPercent: numeric("discount_percent", { precision: 5, scale: 2, mode: "number" })
      .notNull()
      .default(0),
    emailVerifiedAt: timestamptz("email_verified_at"),
    /**
     * Key the account was opened with (audit only: it links nothing; the owner links keys explicitly,
     * `api_keys.account_id`).
     */
    apiKeyId: text("api_key_id").references((): AnyPgColumn => apiKeys.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check("client_accounts_email_lowercase", sql`email = lower(email)`),
    check("client_accounts_discount_range", sql`discount_percent between 0 and 100`),
    index("client_accounts_api_key_id_idx").on(t.apiKeyId),
  ],
);

export type ClientAccount = typeof clientAccounts.$inferSelect;
export type NewClientAccount = typeof clientAccounts.$inferInsert;
