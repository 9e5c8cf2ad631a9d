import { index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.js";

/**
 * Fixed-window rate-limit counters, used when no Redis is configured. One row per bucket
 * and window, incremented with `INSERT ... ON CONFLICT DO UPDATE SET count = count + 1`.
 */
export const rateLimits = pgTable(
  "rate_limits",
  {
    /** What is limited and for whom, e.g. `req:key:<key id>`, `req:ip:<ip>`, `keys:ip:<ip>`, `login:ip:<ip>`. */
    bucket: text("bucket").notNull(),
    /** Start of the window. */
    windowStart: timestamptz("window_start").notNull(),
    /** Requests counted in the window so far. */
    count: integer("count").notNull().default(0),
    /** End of the window; rows past it are purged. */
    expiresAt: timestamptz("expires_at").notNull(),
  },
  (t) => [
    primaryKey({ name: "rate_limits_pk", columns: [t.bucket, t.windowStart] }),
    index("rate_limits_expires_at_idx").on(t.expiresAt),
  ],
);

export type RateLimit = typeof rateLimits.$inferSelect;
export type NewRateLimit = typeof rateLimits.$inferInsert;
