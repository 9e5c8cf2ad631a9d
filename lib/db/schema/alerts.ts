import { index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, timestamptz } from "./columns.js";

/** Operational alerts for the operator (request-volume spikes, unmatched payments, stale jobs, ...). */
export const alerts = pgTable(
  "alerts",
  {
    /** `alrt_<id>`. */
    id: text("id").primaryKey(),
    /** e.g. `volume_spike`, `unmatched_payment`, `job_stale`. */
    kind: text("kind").notNull(),
    subject: text("subject").notNull(),
    details: jsonb("details").$type<Record<string, unknown>>(),
    /** Raises an alert once per incident, e.g. `volume_spike:<org_id>:<hour>`. */
    dedupeKey: text("dedupe_key").unique("alerts_dedupe_key_uq"),
    createdAt: createdAt(),
    resolvedAt: timestamptz("resolved_at"),
  },
  (t) => [index("alerts_kind_created_at_idx").on(t.kind, t.createdAt)],
);

export type Alert = typeof alerts.$inferSelect;
export type NewAlert = typeof alerts.$inferInsert;
