/**
 * Recording one delivery attempt under the lease it was made with (the retry policy of
 * deliver.ts): a 2xx → `delivered`; a failure with a retry left in
 * WEBHOOK_RETRY_DELAYS_SECONDS → `pending` again, due after that delay; the last failure →
 * `dead`, kept DEAD_LETTER_RETENTION_HOURS, with the `webhook-fallback` e-mail to the task's
 * requester_contact (billing events: the key's contact; none for sandbox tasks) queued in the
 * same transaction. Every attempt's time is appended to `attempted_at`, with
 * `last_http_status`. A row whose lease changed meanwhile (another worker took it after the
 * lease lapsed) is left alone: the outcome is `lost`.
 */

import { and, eq, type SQL, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import { type Config, getConfig, publicBaseUrl } from "../config.js";
import { getDb, type Tx } from "../db/client.js";
import { apiKeys, type Delivery, deliveries, emails, tasks, webhooks } from "../db/schema/index.js";
import { prefixedId } from "../ids.js";
import { commonValues } from "../mail/compose-task-email.js";
import { formatDateTime } from "../mail/format.js";
import { renderTemplate } from "../mail/templates.js";
import { applyUnverifiedRecipientRule } from "../mail/unverified-recipients.js";

/** Outcome of one HTTP attempt. */
export interface AttemptOutcome {
  ok: boolean;
  status: number | null;
  error: string | null;
}

/** Queues the dead-letter fallback e-mail of `delivery` (same transaction as its death). */
async function queueFallbackEmail(
  tx: Tx,
  delivery: Delivery,
  expiresAt: Date,
  attempts: number,
): Promise<void> {
  const [task] = delivery.taskId ? await tx.select().from(tasks).where(eq(tasks.id, delivery.taskId)) : [];
  if (task?.sandbox) return;
  let to = task?.requesterContact;
  if (!to && delivery.webhookId) {
    const [owner] = await tx
      .select({ contact: apiKeys.contact })
      .from(webhooks)
      .innerJoin(apiKeys, eq(apiKeys.id, webhooks.apiKeyId))
      .where(eq(webhooks.id, delivery.webhookId));
    to = owner?.contact;
  }
  if (!to) return;
  const lang = task?.lang ?? "en";
  const url = new URL(delivery.url);
  const data = (delivery.payload.data ?? delivery.payload) as Record<string, unknown>;
  const { subject, text } = renderTemplate("webhook-fallback", lang, {
    ...(task
      ? commonValues(task)
      : { operator_name: getConfig().OPERATOR_NAME, contact_email: getConfig().CONTACT_EMAIL }),
    event: delivery.event,
    event_id: delivery.eventId,
    destination: `${url.origin}${url.pathname}`,
    attempts,
    last_status: delivery.lastHttpStatus ?? (lang === "fr" ? "aucune réponse" : "no response"),
    status: typeof data.status === "string" ? data.status : "",
    expires_at: formatDateTime(expiresAt, lang),
    failures_url: delivery.webhookId
      ? `${publicBaseUrl()}/api/webhooks/${encodeURIComponent(delivery.webhookId)}/failures`
      : "",
    payload: JSON.stringify(delivery.payload, null, 2),
  });
  const rows = await applyUnverifiedRecipientRule(
    tx,
    [
      {
        id: prefixedId("email"),
        toAddress: to,
        subject,
        textBody: text,
        template: "webhook-fallback",
        lang,
        taskId: task?.id ?? null,
        dedupeKey: `webhook-fallback:${delivery.id}`,
      },
    ],
    () => (task ? { status: task.status } : undefined),
  );
  await tx.insert(emails).values(rows).onConflictDoNothing();
}

/** Columns every recorded attempt sets: the count, the attempt time appended, the lease released. */
type AttemptColumns = {
  attempts: number;
  attemptedAt: SQL;
  lastHttpStatus: number | null;
  lockedUntil: null;
};

/** Sets `changes` on the delivery while it still holds its lease. @returns false when the lease changed */
async function updateLeased(
  tx: Tx,
  sameLease: SQL | undefined,
  changes: PgUpdateSetSource<typeof deliveries>,
): Promise<boolean> {
  const rows = await tx.update(deliveries).set(changes).where(sameLease).returning({ id: deliveries.id });
  return rows.length > 0;
}

/** Marks the delivery delivered. @returns "lost" when its lease changed meanwhile */
async function markDelivered(tx: Tx, sameLease: SQL | undefined, columns: AttemptColumns) {
  const changes = { ...columns, status: "delivered" as const, lastError: null, deliveredAt: new Date() };
  return (await updateLeased(tx, sameLease, changes)) ? ("delivered" as const) : ("lost" as const);
}

/** Puts the delivery back to `pending`, due at `nextAttemptAt`. @returns "lost" when its lease changed */
async function scheduleRetry(
  tx: Tx,
  sameLease: SQL | undefined,
  columns: AttemptColumns,
  error: string | null,
  nextAttemptAt: Date,
) {
  const changes = { ...columns, status: "pending" as const, lastError: error, nextAttemptAt };
  return (await updateLeased(tx, sameLease, changes)) ? ("retrying" as const) : ("lost" as const);
}

/**
 * Moves the delivery to the dead letters (kept DEAD_LETTER_RETENTION_HOURS) and queues its
 * fallback e-mail in the same transaction. @returns "lost" when its lease changed meanwhile
 */
async function markDead(
  tx: Tx,
  sameLease: SQL | undefined,
  columns: AttemptColumns,
  error: string | null,
  config: Config,
) {
  const deadAt = new Date();
  const expiresAt = new Date(deadAt.getTime() + config.DEAD_LETTER_RETENTION_HOURS * 3600_000);
  const rows = await tx
    .update(deliveries)
    .set({ ...columns, status: "dead", lastError: error, deadAt, expiresAt })
    .where(sameLease)
    .returning();
  if (!rows[0]) return "lost" as const;
  await queueFallbackEmail(tx, rows[0], expiresAt, columns.attempts);
  return "dead" as const;
}

/**
 * Records the outcome of one attempt of `delivery`, made at `attemptedAt`, under the lease it
 * was claimed with (see the module comment), in one transaction.
 * @returns the delivery's new state, or "lost" when its lease changed meanwhile
 * @throws the database's errors (nothing is recorded; the lease lapses and it is taken again)
 */
export async function recordOutcome(
  delivery: Delivery,
  outcome: AttemptOutcome,
  attemptedAt: Date,
  config: Config,
): Promise<"delivered" | "retrying" | "dead" | "lost"> {
  const db = await getDb();
  const columns: AttemptColumns = {
    attempts: delivery.attempts + 1,
    attemptedAt: sql`array_append(${deliveries.attemptedAt}, ${attemptedAt.toISOString()}::timestamptz)`,
    lastHttpStatus: outcome.status,
    lockedUntil: null,
  };
  const sameLease = and(
    eq(deliveries.id, delivery.id),
    eq(deliveries.status, "delivering"),
    eq(deliveries.lockedUntil, delivery.lockedUntil!),
  );
  return db.transaction(async (tx) => {
    if (outcome.ok) return markDelivered(tx, sameLease, columns);
    const delay = config.WEBHOOK_RETRY_DELAYS_SECONDS[columns.attempts - 1];
    if (delay !== undefined) {
      return scheduleRetry(
        tx,
        sameLease,
        columns,
        outcome.error,
        new Date(attemptedAt.getTime() + delay * 1000),
      );
    }
    return markDead(tx, sameLease, columns, outcome.error, config);
  });
}
