import { index, integer, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { createdAt, timestamptz } from "./columns.js";
import type { IdempotencyState } from "./enums.js";

/**
 * `Idempotency-Key` records, kept 24 h (docs/reliability.md "Idempotency"). A row is written
 * only when its request finished, in the same transaction as the request's effects
 * (lib/idempotency/store.ts); a running request holds an advisory lock, not a row.
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
    /** Always `completed` for rows written now; `in_progress` rows (an earlier design) are ignored. */
    state: text("state").$type<IdempotencyState>().notNull().default("in_progress"),
    responseStatus: integer("response_status"),
    responseHeaders: jsonb("response_headers").$type<Record<string, string>>(),
    /** Response body as first sent, encrypted (`v1.…`, lib/idempotency/seal.ts). */
    responseBody: text("response_body"),
    /** Unused since claims became advisory locks (always null in new rows). */
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
