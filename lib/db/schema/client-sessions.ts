import { index, pgTable, text } from "drizzle-orm/pg-core";
import { clientAccounts } from "./accounts-and-keys.js";
import { createdAt, timestamptz } from "./columns.js";

/**
 * Client-dashboard sessions: one row per login, named by the JWT's `jti`. Every JWT check reads its
 * row, so a logout (`revoked_at`), a password reset or a suspension ends the session at once, not when
 * the 24 h token expires.
 */
export const clientSessions = pgTable(
  "client_sessions",
  {
    /** `ses_<random>`: the JWT's `jti`. */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => clientAccounts.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
    /** The JWT's `exp`; past it the row is only history. */
    expiresAt: timestamptz("expires_at").notNull(),
    /** Set by logout (or a password reset); a revoked session authenticates nothing. */
    revokedAt: timestamptz("revoked_at"),
  },
  (t) => [index("client_sessions_account_id_idx").on(t.accountId)],
);

export type ClientSessionRow = typeof clientSessions.$inferSelect;
