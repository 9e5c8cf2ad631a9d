import { index, pgTable, text } from "drizzle-orm/pg-core";
import { clientAccounts } from "./accounts-and-keys.js";
import { createdAt, timestamptz } from "./columns.js";
import type { AuthTokenPurpose } from "./enums.js";

/** One-time tokens e-mailed for e-mail verification and password reset; only their hash is stored. */
export const authTokens = pgTable(
  "auth_tokens",
  {
    /** Lowercase hex SHA-256 of the token. */
    tokenHash: text("token_hash").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => clientAccounts.id, { onDelete: "cascade" }),
    purpose: text("purpose").$type<AuthTokenPurpose>().notNull(),
    expiresAt: timestamptz("expires_at").notNull(),
    /** Set when redeemed; a used token is refused. */
    usedAt: timestamptz("used_at"),
    createdAt: createdAt(),
  },
  (t) => [index("auth_tokens_account_id_idx").on(t.accountId)],
);

export type AuthToken = typeof authTokens.$inferSelect;
export type NewAuthToken = typeof authTokens.$inferInsert;
