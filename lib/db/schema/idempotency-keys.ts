import { index, integer, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { createdAt, timestamptz } from "./columns.js";
import type { IdempotencyState } from "./enums.js";

/**
 * `Idempotency-Key` records (contract.md "Idempotency"), kept 24 h. Used when no Redis is
 * configured. The first request inserts `in_progress`; on finishing it stores the response.
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    /** Caller: `key:<api key id>` or `ip:<client ip>`. */
    scope: text("scope").notNull(),
    /** The client's `Idempotency-Key` (max 128 characters). */
    key: text("key").notNull(),
    /** SHA-256 hex of method, path and body: a reuse with a different request is a 422. */
    requestHash: text("request_hash").notNull(),
    /** `METHOD /path` of the first request (diagnostics). */
    endpoint: text("endpoint"),
    state: text("state").$type<IdempotencyState>().notNull().default("in_progress"),
    responseStatus: integer("response_status"),
    responseHeaders: jsonb("response_headers").$type<Record<string, string>>(),
    /** Response body exactly as first sent. */
    responseBody: text("response_body"),
    /** An `in_progress` record older than this belongs to a crashed request and may be taken over. */
    lockedUntil: timestamptz("locked_until"),
    createdAt: createdAt(),
    /** `created_at` + 24 h; expired rows are ignored and purged. */
    expiresAt: timestamptz("expires_at").notNull(),
  },
  (t) => [
    primaryKey({ name: "idempotency_keys_pk", columns: [t.scope, t.key] }),
    index("idempotency_keys_expires_at_idx").on(t.expiresAt),
  ],
);

export type IdempotencyKey = typeof idempotencyKeys.$inferSelect;
export type NewIdempotencyKey = typeof idempotencyKeys.$inferInsert;
