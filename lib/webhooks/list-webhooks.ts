/** GET /api/webhooks: the caller's active webhooks, oldest first, without secrets. */
import { and, asc, eq, isNull } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { webhooks } from "../db/schema/index.js";
import type { Caller } from "../keys/authenticate.js";

/** One listed webhook. */
export interface WebhookItem {
  webhook_id: string;
  url: string;
  events: string[];
  created_at: string;
}

/** Active webhooks of the caller's key. */
export async function listWebhooks(caller: Caller): Promise<{ webhooks: WebhookItem[] }> {
  const db = await getDb();
  const rows = await db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.apiKeyId, caller.keyId), isNull(webhooks.deletedAt)))
    .orderBy(asc(webhooks.createdAt), asc(webhooks.id));
  return {
    webhooks: rows.map((w) => ({
      webhook_id: w.id,
      url: w.url,
      events: w.events,
      created_at: w.createdAt.toISOString(),
    })),
  };
}
