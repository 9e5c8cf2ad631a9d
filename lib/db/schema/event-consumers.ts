import { bigint, pgTable, text } from "drizzle-orm/pg-core";
import { timestamptz, updatedAt } from "./columns.js";

/** Position of each outbox consumer (webhook fan-out, e-mail sender, ...) in `task_events.seq`. */
export const eventConsumers = pgTable("event_consumers", {
  /** Consumer name, e.g. `webhook-fanout`. */
  name: text("name").primaryKey(),
  /** Highest `task_events.seq` fully processed. */
  lastSeq: bigint("last_seq", { mode: "number" }).notNull().default(0),
  /** Lease: another run does not process this consumer before this time. */
  lockedUntil: timestamptz("locked_until"),
  updatedAt: updatedAt(),
});

export type EventConsumer = typeof eventConsumers.$inferSelect;
export type NewEventConsumer = typeof eventConsumers.$inferInsert;
