/**
 * Lists active keys (GET /api/api-keys): "keys associated with the caller's key" are itself, the
 * keys it created and the keys linked to the same prepaid account (lib/keys/visibility.ts); an
 * admin key sees all.
 */
import { and, desc, isNull } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { type ApiKey, apiKeys } from "../db/schema/index.js";
import type { Caller } from "./authenticate.js";
import { visibleKeysCondition } from "./visibility.js";

/** One listed key, without its secret. */
export interface ApiKeyItem {
  key_id: string;
  name: string;
  contact: string;
  /** The prepaid account the key is linked to (bills and reads), or null. */
  account_id: string | null;
  scopes: string[];
  key_hint: string;
  created_at: string;
  last_used_at: string | null;
}

/** Active keys visible to `caller`, newest first. */
export async function listApiKeys(caller: Caller): Promise<{ keys: ApiKeyItem[]; count: number }> {
  const db = await getDb();
  const visible = await visibleKeysCondition(caller);
  const rows = await db
    .select()
    .from(apiKeys)
    .where(and(isNull(apiKeys.revokedAt), visible))
    .orderBy(desc(apiKeys.createdAt));
  const keys = rows.map(apiKeyItem);
  return { keys, count: keys.length };
}

/** The listing view of a key row (never its hash). */
export function apiKeyItem(r: ApiKey): ApiKeyItem {
  return {
    key_id: r.id,
    name: r.name,
    contact: r.contact,
    account_id: r.accountId,
    scopes: r.scopes,
    key_hint: r.keyHint,
    created_at: r.createdAt.toISOString(),
    last_used_at: r.lastUsedAt?.toISOString() ?? null,
  };
}
