import { sql } from "drizzle-orm";
import { bigserial, index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { apiKeys, clientAccounts } from "./accounts-and-keys.js";
import { createdAt, timestamptz } from "./columns.js";
import type { TaskStatus } from "./enums.js";
import type { EventType } from "./event-registry.js";
import { tasks } from "./tasks.js";

/**
 * The event outbox: every state change writes its event here in the same transaction.
 * Webhooks, callbacks, e-mails and the SSE stream read it afterwards in `seq` order
 * (the dispatcher marks each row `dispatched_at`; the stream reads by task and `seq`).
 * Rows are append-only apart from `dispatched_at`.
 */
export const taskEvents = pgTable(
  "task_events",
  {
    /** `evt_<id>`: the `event_id` of webhook deliveries (`X-Service-Delivery`). */
    id: text("id").primaryKey(),
    /**
     * Global commit order of events. The SSE stream sends it as the event `id`, so
     * `Last-Event-ID` resumes after it. Gaps are possible (rolled-back transactions), and a
     * higher seq may commit before a lower one, so cursor-based consumers should lag the
     * newest rows by a moment (or re-read a short window) rather than skip an in-flight seq.
     */
    seq: bigserial("seq", { mode: "number" }).notNull().unique("task_events_seq_uq"),
    /** The task; null for billing events. */
    taskId: text("task_id").references(() => tasks.id, { onDelete: "cascade" }),
    type: text("type").$type<EventType>().notNull(),
    /** Task status after this event (null for events that do not change it); the status `history`. */
    taskStatus: text("task_status").$type<TaskStatus>(),
    /** Key that owns the task, or that a billing event concerns: webhook fan-out goes to its webhooks. */
    apiKeyId: text("api_key_id").references(() => apiKeys.id, { onDelete: "set null" }),
    /** Client account a billing event concerns. */
    accountId: text("account_id").references(() => clientAccounts.id, { onDelete: "set null" }),
    /** The event's `data` object as delivered (webhook body `data`, SSE `data`). */
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    createdAt: createdAt(),
    /**
     * When the notification dispatcher (lib/events/dispatch-events.ts) turned this event into
     * its deliveries and e-mails, in the same transaction; null = not yet. A flag per row rather
     * than a `seq` cursor, because a lower seq may commit after a higher one.
     */
    dispatchedAt: timestamptz("dispatched_at"),
  },
  (t) => [
    index("task_events_undispatched_idx").on(t.seq).where(sql`dispatched_at is null`),
    index("task_events_task_id_seq_idx").on(t.taskId, t.seq),
    index("task_events_api_key_id_seq_idx").on(t.apiKeyId, t.seq),
    index("task_events_account_id_idx").on(t.accountId),
  ],
);

export type TaskEvent = typeof taskEvents.$inferSelect;
export type NewTaskEvent = typeof taskEvents.$inferInsert;
