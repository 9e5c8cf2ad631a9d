/**
 * GET /api/webhooks/{webhook_id}/failures: the webhook's dead-letter queue
 * (docs/api-conventions.md "Failed delivery record"): deliveries that failed every attempt,
 * kept until `expires_at` (72 h after they died), newest first.
 */
import { and, count, desc, eq, gt } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { deliveries } from "../db/schema/index.js";
import type { Caller } from "../keys/authenticate.js";
import { findWebhookOrThrow } from "./find-webhook.js";

/** One failed delivery record. */
export interface FailedDelivery {
  event_id: string;
  task_id: string | null;
  event: string;
  attempted_at: string[];
  last_http_status: number | null;
  last_error: string | null;
  payload: Record<string, unknown>;
  fallback_email_sent: boolean;
  dead_at: string;
  expires_at: string;
}

/** @throws DomainError NOT_FOUND for an unknown or foreign webhook. */
export async function listWebhookFailures(
  caller: Caller,
  webhookId: string,
  page: { limit: number; offset: number },
  now = new Date(),
): Promise<{ webhook_id: string; total: number; limit: number; offset: number; failures: FailedDelivery[] }> {
  const webhook = await findWebhookOrThrow(caller, webhookId);
  const db = await getDb();
  const where = and(
    eq(deliveries.webhookId, webhook.id),
    eq(deliveries.status, "dead"),
    gt(deliveries.expiresAt, now),
  );
  const [totalRow] = await db.select({ n: count() }).from(deliveries).where(where);
  const rows = await db
    .select()
    .from(deliveries)
    .where(where)
    .orderBy(desc(deliveries.deadAt), desc(deliveries.id))
    .limit(page.limit)
    .offset(page.offset);
  return {
    webhook_id: webhook.id,
    total: totalRow?.n ?? 0,
    limit: page.limit,
    offset: page.offset,
    failures: rows.map((d) => ({
      event_id: d.eventId,
      task_id: d.taskId,
      event: d.event,
      attempted_at: d.attemptedAt.map((t) => t.toISOString()),
      last_http_status: d.lastHttpStatus,
      last_error: d.lastError,
      payload: d.payload,
      fallback_email_sent: d.fallbackEmailSent,
      dead_at: (d.deadAt ?? d.createdAt).toISOString(),
      expires_at: d.expiresAt!.toISOString(),
    })),
  };
}
