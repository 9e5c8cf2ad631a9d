import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { clientAccounts } from "./accounts-and-keys.js";
import { createdAt, timestamptz } from "./columns.js";
import type { EmailStatus, Lang } from "./enums.js";
import { tasks } from "./tasks.js";

/**
 * Outgoing e-mail, written as a row (often in the transaction of the change it reports)
 * and sent afterwards by the mail worker. Sandbox tasks never produce rows here.
 */
export const emails = pgTable(
  "emails",
  {
    /** `em_<id>`. */
    id: text("id").primaryKey(),
    toAddress: text("to_address").notNull(),
    subject: text("subject").notNull(),
    textBody: text("text_body").notNull(),
    htmlBody: text("html_body"),
    /** Template name, e.g. `task-received`, `payment-instructions`, `webhook-fallback`. */
    template: text("template"),
    lang: text("lang").$type<Lang>(),
    taskId: text("task_id").references(() => tasks.id, { onDelete: "set null" }),
    accountId: text("account_id").references(() => clientAccounts.id, { onDelete: "set null" }),
    /** Makes enqueueing idempotent, e.g. `task-received:<task_id>`, `dlq-fallback:<delivery_id>`. */
    dedupeKey: text("dedupe_key").unique("emails_dedupe_key_uq"),
    status: text("status").$type<EmailStatus>().notNull().default("queued"),
    /** Send attempts so far. */
    attempts: integer("attempts").notNull().default(0),
    /** Transport that sent it: `resend`, or `outbox` (no provider configured: stored and logged only). */
    provider: text("provider"),
    providerMessageId: text("provider_message_id"),
    /** Last send error. */
    error: text("error"),
    /**
     * Files to attach, resolved when the message is sent (proof files stay in `proof_files`,
     * not copied here): `[{ proof_file_id, filename, content_type }]`.
     */
    attachments: jsonb("attachments").$type<EmailAttachmentRef[]>(),
    /** When a `queued` message is next due (retries back off). */
    nextAttemptAt: timestamptz("next_attempt_at").notNull().defaultNow(),
    /** Lease of the worker sending it; past it another worker may take it. */
    lockedUntil: timestamptz("locked_until"),
    createdAt: createdAt(),
    sentAt: timestamptz("sent_at"),
  },
  (t) => [
    index("emails_status_created_at_idx").on(t.status, t.createdAt),
    index("emails_task_id_idx").on(t.taskId),
    index("emails_status_next_attempt_at_idx").on(t.status, t.nextAttemptAt),
    /**
     * Messages to one address over a period, case folded: the per-address daily count of
     * unverified-recipient notices (lib/mail/unverified-recipients.ts; issue 32 item 6).
     */
    index("emails_lower_to_address_created_at_idx").on(sql`lower(${t.toAddress})`, t.createdAt),
  ],
);

/** A proof file attached to an e-mail. */
export interface EmailAttachmentRef {
  proof_file_id: string;
  filename: string;
  content_type: string;
}

export type Email = typeof emails.$inferSelect;
export type NewEmail = typeof emails.$inferInsert;
