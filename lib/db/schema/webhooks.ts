import { sql } from "drizzle-orm";
import { index, pgTable, text } from "drizzle-orm/pg-core";
import { apiKeys } from "./accounts-and-keys.js";
import { createdAt, timestamptz } from "./columns.js";
import type { EventType } from "./event-registry.js";

/**
 * Webhooks registered by API keys (at most 5 active per key). Deleting one sets
 * `deleted_at`, so its dead-letter records stay readable until they expire.
 */
export const webhooks = pgTable(
  "webhooks",
  {
    /** `wh_<id>`. */
    id: text("id").primaryKey(),
    apiKeyId: text("api_key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    /** HTTPS URL, checked against private addresses at registration and at delivery. */
    url: text("url").notNull(),
    /** Event types this webhook receives. */
    events: text("events").array().$type<EventType[]>().notNull(),
    /**
     * The `whsec_...` signing secret, encrypted by the application (it must be recoverable
     * to sign deliveries, so it cannot be hashed).
     */
    secretCiphertext: text("secret_ciphertext").notNull(),
    createdAt: createdAt(),
    deletedAt: timestamptz("deleted_at"),
  },
  (t) => [index("webhooks_api_key_id_active_idx").on(t.apiKeyId).where(sql`deleted_at is null`)],
);

export type Webhook = typeof webhooks.$inferSelect;
export type NewWebhook = typeof webhooks.$inferInsert;
