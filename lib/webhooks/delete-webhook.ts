/**
 * DELETE /api/webhooks: marks the webhook deleted (its dead-letter records stay readable
 * until they expire) and cancels its pending deliveries. Own webhooks only (an admin: any);
 * anything else is 404, like an unknown id, so ids cannot be probed.
 */
import { and, eq, inArray, isNull } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { deliveries, webhooks } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import type { Caller } from "../keys/authenticate.js";

/** @throws DomainError NOT_FOUND for an unknown, already deleted or foreign webhook. */
export async function deleteWebhook(
  caller: Caller,
  webhookId: string,
): Promise<{ webhook_id: string; deleted: true; deleted_at: string }> {
  const db = await getDb();
  const now = new Date();
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(webhooks)
      .set({ deletedAt: now })
      .where(
        and(
          eq(webhooks.id, webhookId),
          isNull(webhooks.deletedAt),
          caller.isAdmin ? undefined : eq(webhooks.apiKeyId, caller.keyId),
        ),
      )
      .returning({ id: webhooks.id });
    if (!row) throw new DomainError("NOT_FOUND", `No webhook ${webhookId}`, { field: "webhook_id" });
    await tx
      .update(deliveries)
      .set({ status: "cancelled", lockedUntil: null, lastError: "webhook deleted" })
      .where(and(eq(deliveries.webhookId, webhookId), inArray(deliveries.status, ["pending", "delivering"])));
    return { webhook_id: row.id, deleted: true as const, deleted_at: now.toISOString() };
  });
}
