import { index, pgTable, text } from "drizzle-orm/pg-core";
import { apiKeys, clientAccounts } from "./accounts-and-keys.js";
import { cad, createdAt, timestamptz } from "./columns.js";
import { tasks } from "./tasks.js";

/**
 * Budget pre-authorizations (`POST /api/billing`, action `pre_authorize`), valid 5 minutes.
 * A granted one holds `amount_cad` of the balance until it expires or a task consumes it.
 */
export const preauthorizations = pgTable(
  "preauthorizations",
  {
    /** `pa_<id>`. */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => clientAccounts.id, { onDelete: "cascade" }),
    /** `agent_id` as given by the caller (e-mail or key name). */
    agentId: text("agent_id").notNull(),
    /** Key that asked for it. */
    apiKeyId: text("api_key_id").references(() => apiKeys.id, { onDelete: "set null" }),
    /** Authorized maximum, CAD (`max_cost_cad`). */
    amountCad: cad("amount_cad").notNull(),
    validUntil: timestamptz("valid_until").notNull(),
    consumedByTaskId: text("consumed_by_task_id").references(() => tasks.id, { onDelete: "set null" }),
    consumedAt: timestamptz("consumed_at"),
    createdAt: createdAt(),
  },
  (t) => [index("preauthorizations_account_id_valid_until_idx").on(t.accountId, t.validUntil)],
);

export type Preauthorization = typeof preauthorizations.$inferSelect;
export type NewPreauthorization = typeof preauthorizations.$inferInsert;
