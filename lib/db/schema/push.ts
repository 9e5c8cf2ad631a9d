/**
 * Web Push (issue 44 item 6): staff sessions' subscriptions, the queued messages and the review-wait
 * notices. docs/notifications.md "Push notifications".
 */
import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, timestamptz } from "./columns.js";
import type { Lang } from "./enums.js";
import { staffMembers, staffSessions } from "./staff.js";
import { tasks } from "./tasks.js";

/** What a push message tells (issue 44 item 6; docs/notifications.md "Push notifications"). */
export const PUSH_KINDS = ["task_assigned", "task_at_risk", "review_waiting"] as const;
export type PushKind = (typeof PUSH_KINDS)[number];

/** State of a queued push message. */
export const PUSH_MESSAGE_STATUSES = ["queued", "sent", "failed"] as const;
export type PushMessageStatus = (typeof PUSH_MESSAGE_STATUSES)[number];

/**
 * Web Push subscriptions of staff sessions (issue 44 item 6): the browser's PushSubscription
 * (RFC 8030 endpoint, RFC 8291 keys) registered by the field app or the console for the session
 * that registered it. Deleted with the session's sign-out, the staff member's suspension or role
 * change (their sessions end), and when the push service answers 404 or 410; a subscription of an
 * expired session is never sent to.
 */
export const pushSubscriptions = pgTable(
  "push_subscriptions",
  {
    /** `psb_<id>`. */
    id: text("id").primaryKey(),
    staffId: text("staff_id")
      .notNull()
      .references(() => staffMembers.id, { onDelete: "cascade" }),
    sessionId: text("session_id")
      .notNull()
      .references(() => staffSessions.id, { onDelete: "cascade" }),
    /** The push service's URL for this browser (a capability URL: whoever holds it may push). */
    endpoint: text("endpoint").notNull().unique("push_subscriptions_endpoint_uq"),
    /** The browser's P-256 ECDH public key, base64url (RFC 8291 `p256dh`). */
    p256dh: text("p256dh").notNull(),
    /** The 16-byte authentication secret, base64url (RFC 8291 `auth`). */
    auth: text("auth").notNull(),
    /** Language of the messages (the page's language when it subscribed). */
    lang: text("lang").$type<Lang>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index("push_subscriptions_staff_id_idx").on(t.staffId),
    index("push_subscriptions_session_id_idx").on(t.sessionId),
  ],
);

/** The content of one push message (the JSON the service worker receives, decrypted). */
export interface PushPayload {
  kind: PushKind;
  task_id: string;
  title: string;
  body: string;
  /** Same-origin path the notification opens when clicked. */
  url: string;
  /** Notification tag: a newer message of the same task and kind replaces the older one. */
  tag: string;
}

/**
 * Push messages to send, one per subscription, written in the transaction that dispatches the
 * events they report (or records a review wait), sent afterwards by the outbox pass
 * (lib/push/send-pushes.ts). Kept 7 days after sending for support.
 */
export const pushMessages = pgTable(
  "push_messages",
  {
    /** `psh_<id>`. */
    id: text("id").primaryKey(),
    subscriptionId: text("subscription_id")
      .notNull()
      .references(() => pushSubscriptions.id, { onDelete: "cascade" }),
    kind: text("kind").$type<PushKind>().notNull(),
    taskId: text("task_id").references(() => tasks.id, { onDelete: "cascade" }),
    /** Makes queueing idempotent: `<kind>:<event id or task id>:<subscription id>`. */
    dedupeKey: text("dedupe_key").notNull().unique("push_messages_dedupe_key_uq"),
    payload: jsonb("payload").$type<PushPayload>().notNull(),
    status: text("status").$type<PushMessageStatus>().notNull().default("queued"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamptz("next_attempt_at").notNull(),
    /** Lease of the worker sending it. */
    lockedUntil: timestamptz("locked_until"),
    /** The push service's last HTTP status, if it answered. */
    lastStatus: integer("last_status"),
    error: text("error"),
    sentAt: timestamptz("sent_at"),
    createdAt: createdAt(),
  },
  (t) => [
    index("push_messages_due_idx").on(t.nextAttemptAt).where(sql`status = 'queued'`),
    index("push_messages_subscription_id_idx").on(t.subscriptionId),
  ],
);

/**
 * Tasks whose review wait was reported to the reviewers (once per task, issue 44 item 6): written
 * with the messages, whether or not any reviewer had a subscription then.
 */
export const pushReviewNotices = pgTable("push_review_notices", {
  taskId: text("task_id")
    .primaryKey()
    .references(() => tasks.id, { onDelete: "cascade" }),
  notifiedAt: timestamptz("notified_at").notNull(),
});

export type PushSubscriptionRow = typeof pushSubscriptions.$inferSelect;
export type PushMessage = typeof pushMessages.$inferSelect;
export type NewPushMessage = typeof pushMessages.$inferInsert;
