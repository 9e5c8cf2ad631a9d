/**
 * POST /api/webhooks/{webhook_id}/failures {event_id}: takes a dead-lettered delivery
 * out of the queue and delivers it again now, with the full retry schedule (its earlier
 * attempt times stay in `attempted_at`). The body is the one stored, so `event_id` and
 * `created_at` are unchanged and receivers can de-duplicate; the signature is fresh.
 */
import { and, eq, gt } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { deliveries } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import type { Caller } from "../keys/authenticate.js";
import { findWebhookOrThrow } from "../webhooks/find-webhook.js";
import { kickOutbox } from "./kick-outbox.js";

/**
 * @throws DomainError NOT_FOUND (unknown, foreign or deleted webhook; no unexpired dead-letter
 *   record for `eventId`)
 */
export async function replayWebhookFailure(
  caller: Caller,
  webhookId: string,
  eventId: string,
  now = new Date(),
): Promise<{ webhook_id: string; event_id: string; status: "pending"; next_attempt_at: string }> {
  const webhook = await findWebhookOrThrow(caller, webhookId);
  if (webhook.deletedAt)
    throw new DomainError("NOT_FOUND", `Webhook ${webhookId} was deleted`, { field: "webhook_id" });
  const db = await getDb();
  const [row] = await db
    .update(deliveries)
    .set({
      status: "pending",
      attempts: 0,
      nextAttemptAt: now,
      deadAt: null,
      expiresAt: null,
      lockedUntil: null,
    })
    .where(
      and(
        eq(deliveries.webhookId, webhook.id),
        eq(deliveries.eventId, eventId),
        eq(deliveries.status, "dead"),
        gt(deliveries.expiresAt, now),
      ),
    )
    .returning({ id: deliveries.id });
  if (!row) {
    throw new DomainError("NOT_FOUND", `No dead-letter record of event ${eventId} for webhook ${webhookId}`, {
      field: "event_id",
    });
  }
  kickOutbox();
  return { webhook_id: webhook.id, event_id: eventId, status: "pending", next_attempt_at: now.toISOString() };
}
