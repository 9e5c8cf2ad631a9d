import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, text, unique } from "drizzle-orm/pg-core";
import { createdAt, timestamptz } from "./columns.js";
import type { DeliveryKind, DeliveryStatus } from "./enums.js";
import type { EventType } from "./event-registry.js";
import { taskEvents } from "./task-events.js";
import { tasks } from "./tasks.js";
import { webhooks } from "./webhooks.js";

/**
 * One outgoing HTTP delivery of one event to one destination: a registered webhook
 * (signed) or the task's `callback_url` (unsigned). Retried after 30 s, 5 min and 30 min;
 * after the last failed attempt it becomes `dead` (the dead-letter queue), kept until
 * `expires_at` (72 h), and a fallback e-mail goes to the requester.
 */
export const deliveries = pgTable(
  "deliveries",
  {
    /** `dlv_<id>`. */
    id: text("id").primaryKey(),
    eventId: text("event_id")
      .notNull()
      .references(() => taskEvents.id, { onDelete: "cascade" }),
    /** The registered webhook; null for a per-task callback. */
    webhookId: text("webhook_id").references(() => webhooks.id, { onDelete: "cascade" }),
    kind: text("kind").$type<DeliveryKind>().notNull(),
    /** Destination URL, copied at fan-out. */
    url: text("url").notNull(),
    taskId: text("task_id").references(() => tasks.id, { onDelete: "set null" }),
    /** Event type (the `event` field of the body and of the failure record). */
    event: text("event").$type<EventType>().notNull(),
    /** Exact JSON body sent (stored so that every retry sends the same body). */
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    status: text("status").$type<DeliveryStatus>().notNull().default("pending"),
    /** Attempts made so far. */
    attempts: integer("attempts").notNull().default(0),
    /** Time of each attempt, oldest first. */
    attemptedAt: timestamptz("attempted_at").array().notNull().default(sql`'{}'`),
    /** HTTP status of the last attempt; null when it got no response. */
    lastHttpStatus: integer("last_http_status"),
    /** Network error or response excerpt of the last failed attempt. */
    lastError: text("last_error"),
    /** When a `pending` delivery is next due. */
    nextAttemptAt: timestamptz("next_attempt_at").notNull().defaultNow(),
    /** Lease of the worker currently delivering it (`delivering`); past it, another worker may retry. */
    lockedUntil: timestamptz("locked_until"),
    deliveredAt: timestamptz("delivered_at"),
    /** When it entered the dead-letter queue. */
    deadAt: timestamptz("dead_at"),
    /** End of dead-letter retention (`dead_at` + 72 h); purged after. */
    expiresAt: timestamptz("expires_at"),
    fallbackEmailSent: boolean("fallback_email_sent").notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    /** One delivery per event and destination; NULLS NOT DISTINCT so one callback per event (PostgreSQL >= 15). */
    unique("deliveries_event_kind_webhook_uq").on(t.eventId, t.kind, t.webhookId).nullsNotDistinct(),
    index("deliveries_status_next_attempt_at_idx").on(t.status, t.nextAttemptAt),
    index("deliveries_webhook_id_status_idx").on(t.webhookId, t.status),
    index("deliveries_task_id_idx").on(t.taskId),
    index("deliveries_expires_at_idx").on(t.expiresAt),
  ],
);

export type Delivery = typeof deliveries.$inferSelect;
export type NewDelivery = typeof deliveries.$inferInsert;
