/**
 * Client accounts and API keys: one file for the two tables because each references the
 * other (a key's account, the key an account was opened with), and drizzle needs both
 * tables in scope for the foreign keys.
 */
import { sql } from "drizzle-orm";
import { type AnyPgColumn, check, index, numeric, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, timestamptz, updatedAt } from "./columns.js";
import type { AccountStatus, Lang, Scope } from "./enums.js";

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

/**
 * API keys. The full key (`<key_prefix>_<random>`) is shown once at creation; only its
 * SHA-256 is stored. Keys are revoked (`revoked_at`), never deleted, so that the tasks,
 * webhooks and logs that name them keep their owner.
 */
export const apiKeys = pgTable(
  "api_keys",
  {
    /** `key_<random>`: the public key id (never the secret). */
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    /**
     * Contact e-mail typed at creation, stored lowercase. Never verified: it grants nothing (no account, no
     * billing, no visibility of other keys); it is only where the key's own notifications go.
     */
    contact: text("contact").notNull(),
    /**
     * The prepaid account this key bills and reads, set only by that account's verified owner (signed in:
     * a key created from the dashboard, or an existing key linked by proving possession of it). Null: the
     * key pays in USDC and sees no account.
     */
    accountId: text("account_id").references((): AnyPgColumn => clientAccounts.id, { onDelete: "set null" }),
    /** Lowercase hex SHA-256 of the full key; the lookup path of every authenticated request. */
    keyHash: text("key_hash").notNull().unique("api_keys_key_hash_uq"),
    /** Last 4 characters of the key, shown in listings. */
    keyHint: text("key_hint").notNull(),
    scopes: text("scopes").array().$type<Scope[]>().notNull().default(sql`'{audit_only,task_create}'`),
    /** The key that created this one (admin-created keys; "keys associated with the caller's key"). */
    createdByKeyId: text("created_by_key_id").references((): AnyPgColumn => apiKeys.id, {
      onDelete: "set null",
    }),
    /** Client IP of the creating request (key-creation rate limit, audit). */
    createdIp: text("created_ip"),
    createdAt: createdAt(),
    /** Time of the last authenticated request (may be written lazily, e.g. at most once a minute). */
    lastUsedAt: timestamptz("last_used_at"),
    /** Set on revocation; a revoked key authenticates nothing. */
    revokedAt: timestamptz("revoked_at"),
  },
  (t) => [
    index("api_keys_created_by_key_id_idx").on(t.createdByKeyId),
    index("api_keys_contact_idx").on(t.contact),
    index("api_keys_account_id_idx").on(t.accountId),
  ],
);

export type ApiKey = typeof apiKeys.$inferSelect;
export type NewApiKey = typeof apiKeys.$inferInsert;
