import { sql } from "drizzle-orm";
import { type AnyPgColumn, index, pgTable, text } from "drizzle-orm/pg-core";
import { clientAccounts } from "./client-accounts.js";
import { createdAt, timestamptz } from "./columns.js";
import type { Scope } from "./enums.js";

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
