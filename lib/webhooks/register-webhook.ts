/**
 * Registers a webhook (POST /api/webhooks; docs/api-conventions.md "Webhook registration").
 * The URL passes the SSRF rules of `callback_url` (lib/net/outbound-url.ts); at most 5
 * active webhooks per key, counted under a lock of the key's row so two concurrent
 * registrations cannot both become the 5th. The `whsec_` secret is returned once and
 * stored encrypted (secret-box.ts).
 */
import { and, count, eq, isNull } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { apiKeys, webhooks } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { prefixedId } from "../ids.js";
import type { Caller } from "../keys/authenticate.js";
import { checkOutboundUrl } from "../net/outbound-url.js";
import { type CreateWebhookBody, MAX_WEBHOOKS_PER_KEY } from "./schemas.js";
import { encryptSecret, newWebhookSecret } from "./secret-box.js";

/** The 201 body. */
export interface WebhookCreated {
  webhook_id: string;
  secret: string;
  url: string;
  events: string[];
  created_at: string;
}

/**
 * @throws DomainError INVALID_FORMAT (400: URL not absolute / HTTPS / resolvable, or private; the spec's
 *   "400 invalid URL or events"), VALIDATION_ERROR (422: a 6th active webhook), FIELD_TOO_LONG (URL
 *   over 2048 characters)
 */
export async function registerWebhook(caller: Caller, body: CreateWebhookBody): Promise<WebhookCreated> {
  const url = await checkOutboundUrl(body.url, "url", { invalidCode: "INVALID_FORMAT" });
  const id = prefixedId("wh");
  const secret = newWebhookSecret();
  const now = new Date();
  const db = await getDb();
  await db.transaction(async (tx) => {
    await tx.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.id, caller.keyId)).for("update");
    const [row] = await tx
      .select({ n: count() })
      .from(webhooks)
      .where(and(eq(webhooks.apiKeyId, caller.keyId), isNull(webhooks.deletedAt)));
    if ((row?.n ?? 0) >= MAX_WEBHOOKS_PER_KEY) {
      throw new DomainError(
        "VALIDATION_ERROR",
        `At most ${MAX_WEBHOOKS_PER_KEY} webhooks per key; delete one first (DELETE /api/webhooks)`,
        { extra: { limit: MAX_WEBHOOKS_PER_KEY, active: row?.n ?? 0 } },
      );
    }
    await tx.insert(webhooks).values({
      id,
      apiKeyId: caller.keyId,
      url: url.href,
      events: body.events,
      secretCiphertext: encryptSecret(secret, id),
      createdAt: now,
    });
  });
  return { webhook_id: id, secret, url: url.href, events: body.events, created_at: now.toISOString() };
}
