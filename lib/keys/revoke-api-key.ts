/**
 * Revokes a key permanently (DELETE /api/api-keys). A key may revoke the keys it sees
 * (itself, the keys it created, the keys linked to its own account: lib/keys/visibility.ts); an
 * admin any key. A key the caller may not see is
 * reported as 404, like an unknown one, so keys cannot be probed. The key is forgotten by this
 * instance's cache of verified keys (lib/keys/authenticate.ts), so it is refused here at once.
 */
import { and, eq, isNull } from "drizzle-orm";
import { recordAudit } from "../db/audit.js";
import { getDb } from "../db/client.js";
import { apiKeys } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { sha256Hex } from "../ids.js";
import { type Caller, forgetCachedKey } from "./authenticate.js";
import { visibleKeysCondition } from "./visibility.js";

/**
 * @throws DomainError NOT_FOUND for an unknown, already revoked or foreign key.
 */
export async function revokeApiKey(
  caller: Caller,
  keyToRevoke: string,
): Promise<{ revoked: true; key_id: string; revoked_at: string }> {
  const db = await getDb();
  const visible = await visibleKeysCondition(caller);
  const keyHash = sha256Hex(keyToRevoke.trim());
  const row = await db.transaction(async (tx) => {
    const [revoked] = await tx
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt), visible))
      .returning({ id: apiKeys.id, revokedAt: apiKeys.revokedAt });
    if (revoked) await recordAudit(tx, { action: "key.revoke", targetKind: "api_key", targetId: revoked.id });
    return revoked;
  });
  await forgetCachedKey(keyHash);
  if (!row)
    throw new DomainError("NOT_FOUND", "No active key matches key_to_revoke", { field: "key_to_revoke" });
  return { revoked: true, key_id: row.id, revoked_at: row.revokedAt!.toISOString() };
}
