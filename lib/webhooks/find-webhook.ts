/** Lookup of a webhook its caller may see (own key's, deleted ones included; any for an admin). */
import { and, eq } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { type Webhook, webhooks } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import type { Caller } from "../keys/authenticate.js";

/**
 * The webhook `webhookId` if `caller` owns it (or is an admin).
 * @throws DomainError NOT_FOUND otherwise (unknown and foreign look the same).
 */
export async function findWebhookOrThrow(caller: Caller, webhookId: string): Promise<Webhook> {
  const db = await getDb();
  const [row] = await db
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.id, webhookId), caller.isAdmin ? undefined : eq(webhooks.apiKeyId, caller.keyId)));
  if (!row) throw new DomainError("NOT_FOUND", `No webhook ${webhookId}`, { field: "webhook_id" });
  return row;
}
