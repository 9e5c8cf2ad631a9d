/**
 * Lists active keys (GET /api/api-keys): a key sees the keys registered to its own
 * contact e-mail ("keys associated with the caller's key"); an admin key sees all.
 */
import { and, desc, eq, isNull } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { apiKeys } from "../db/schema/index.js";
import type { Caller } from "./authenticate.js";

/** One listed key, without its secret. */
export interface ApiKeyItem {
  key_id: string;
  name: string;
  contact: string;
  scopes: string[];
  key_hint: string;
  created_at: string;
  last_used_at: string | null;
}

/** Active keys visible to `caller`, newest first. */
export async function listApiKeys(caller: Caller): Promise<{ keys: ApiKeyItem[]; count: number }> {
  const db = await getDb();
  const rows = await db
    .select()
    .from(apiKeys)
    .where(
      caller.isAdmin
        ? isNull(apiKeys.revokedAt)
        : and(isNull(apiKeys.revokedAt), eq(apiKeys.contact, caller.contact)),
    )
    .orderBy(desc(apiKeys.createdAt));
  const keys = rows.map((r) => ({
    key_id: r.id,
    name: r.name,
    contact: r.contact,
    scopes: r.scopes,
    key_hint: r.keyHint,
    created_at: r.createdAt.toISOString(),
    last_used_at: r.lastUsedAt?.toISOString() ?? null,
  }));
  return { keys, count: keys.length };
}
