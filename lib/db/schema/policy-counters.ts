import { date, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/**
 * Refused submissions, counted (lib/policy): a refused task is never stored, only this
 * counter per UTC day, rules version and reason code grows, next to the activity log's row
 * of the request.
 */
export const policyCounters = pgTable(
  "policy_counters",
  {
    /** UTC day of the refusals. */
    day: date("day", { mode: "string" }).notNull(),
    /** Version of the rules that refused (lib/policy/rules.json `version`). */
    version: text("version").notNull(),
    reasonCode: text("reason_code").notNull(),
    count: integer("count").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.day, t.version, t.reasonCode] })],
);

export type PolicyCounter = typeof policyCounters.$inferSelect;
