/**
 * Which keys a key may see and revoke (GET and DELETE /api/api-keys): itself, the keys it created
 * (`created_by_key_id`), and — when the caller's key is linked to a prepaid account by that
 * account's verified owner — every key linked to the same account. An admin key sees every key.
 * The typed `contact` e-mail plays no part: anyone can type anyone's address.
 */
import { eq, or, type SQL } from "drizzle-orm";
import { getDb } from "../db/client.js";
import { apiKeys } from "../db/schema/index.js";
import type { Caller } from "./authenticate.js";

/**
 * The SQL condition on `api_keys` selecting the keys `caller` may see, or undefined for an admin
 * (every key). Reads the caller's account link from the database (never from the key cache).
 */
export async function visibleKeysCondition(caller: Caller): Promise<SQL | undefined> {
  if (caller.isAdmin) return undefined;
  const db = await getDb();
  const [self] = await db
    .select({ accountId: apiKeys.accountId })
    .from(apiKeys)
    .where(eq(apiKeys.id, caller.keyId));
  const accountId = self?.accountId ?? null;
  return or(
    eq(apiKeys.id, caller.keyId),
    eq(apiKeys.createdByKeyId, caller.keyId),
    ...(accountId ? [eq(apiKeys.accountId, accountId)] : []),
  );
}
