/**
 * The keys of a prepaid account, managed by its verified owner (GET/POST /api/account-keys, the client
 * dashboard's "API keys"). As on payment platforms, the keys that bill an account belong to it: a key
 * reads the account and its tasks are charged to it only when `api_keys.account_id` names the account,
 * and only the signed-in owner (client JWT, whose login needs a verified e-mail) sets it:
 *
 * - `create` {name, scopes?}: a new key linked to the account (shown once; scopes default to
 *   `audit_only`, `task_create`, `billing_read`; `admin` is never granted here);
 * - `link` {api_key} — or no `api_key` and the key sent as `x-api-key` with the JWT: links an existing
 *   key. The full key is the proof of possession: a key id or name alone never links. Refused for a
 *   revoked or unknown key (404), an admin key (422), a key linked to another account (409);
 * - `unlink` {key_id}: the key stops billing and reading the account at once (it stays valid and pays
 *   in USDC); only a key linked to this account (else 404), and not a key backing an OAuth client's
 *   authorization (lib/oauth/consent.ts), which would go on working unlinked: that one is revoked;
 * - `revoke` {key_id}: a key linked to this account ends for good (else 404); for an OAuth client, its
 *   authorization ends with it (tokens refused, refresh refused: lib/oauth/adapter.ts, bearer.ts).
 * Anonymous `POST /api/api-keys` never links: its typed `contact` is not verified.
 */
import { and, desc, eq, isNull, type SQL } from "drizzle-orm";
import type { ClientPrincipal } from "../auth/sessions.js";
import { recordAudit } from "../db/audit.js";
import { getDb } from "../db/client.js";
import type { Scope } from "../db/schema/enums.js";
import { apiKeys, oauthGrantKeys } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { sha256Hex } from "../ids.js";
import { type Caller, forgetCachedKey } from "./authenticate.js";
import { type CreatedApiKey, createApiKey } from "./create-api-key.js";
import { type ApiKeyItem, apiKeyItem } from "./list-api-keys.js";
import type { AccountKeysBody } from "./schemas.js";

/** Default scopes of a key created for an account: it may also read the account's billing. */
export const ACCOUNT_KEY_DEFAULT_SCOPES: Scope[] = ["audit_only", "task_create", "billing_read"];

/** Answer of GET /api/account-keys. */
export interface AccountKeysList {
  account_id: string;
  keys: (ApiKeyItem & { oauth_client_id: string | null })[];
  count: number;
}

/** Answer of POST /api/account-keys. */
export type AccountKeysResult =
  | ({ action: "create" } & CreatedApiKey)
  | { action: "link"; linked: true; key: ApiKeyItem }
  | { action: "unlink"; unlinked: true; key_id: string }
  | { action: "revoke"; revoked: true; key_id: string };

/** The active keys linked to the client's account, newest first. */
export async function listAccountKeys(client: ClientPrincipal): Promise<AccountKeysList> {
  const db = await getDb();
  const rows = await db
    .select({ key: apiKeys, oauthClientId: oauthGrantKeys.clientId })
    .from(apiKeys)
    .leftJoin(oauthGrantKeys, eq(oauthGrantKeys.keyId, apiKeys.id))
    .where(and(eq(apiKeys.accountId, client.account.id), isNull(apiKeys.revokedAt)))
    .orderBy(desc(apiKeys.createdAt));
  // A key backing an OAuth client has a row per grant the client received (lib/oauth/consent.ts):
  // it is listed once.
  const seen = new Set<string>();
  const keys = rows
    .filter((r) => !seen.has(r.key.id) && seen.add(r.key.id))
    .map((r) => ({ ...apiKeyItem(r.key), oauth_client_id: r.oauthClientId }));
  return { account_id: client.account.id, keys, count: keys.length };
}

/**
 * Sets the account of the key matching `where` to `accountId` (null: unlinks it) and records
 * `action` for account `auditAccountId` in the same transaction (the audit trail,
 * docs/staff-and-audit.md).
 * @returns the updated key row, or undefined when no key matched
 */
async function setKeyAccount(
  where: SQL,
  accountId: string | null,
  action: "key.link" | "key.unlink",
  auditAccountId: string,
) {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [updated] = await tx.update(apiKeys).set({ accountId }).where(where).returning();
    if (updated) {
      await recordAudit(tx, {
        action,
        targetKind: "api_key",
        targetId: updated.id,
        details: { account_id: auditAccountId },
      });
    }
    return updated;
  });
}

/**
 * Runs `body.action` for the signed-in owner `client`; `caller` is the key sent as `x-api-key`, if any
 * (`link` without `api_key` links it).
 * @throws DomainError VALIDATION_ERROR (missing member for the action, admin key), NOT_FOUND (unknown,
 *   revoked or foreign key), CONFLICT (key linked to another account)
 */
export async function manageAccountKeys(
  client: ClientPrincipal,
  caller: Caller | null,
  body: AccountKeysBody,
  ip: string,
): Promise<AccountKeysResult> {
  const account = client.account;
  const db = await getDb();
  switch (body.action) {
    case "create": {
      if (!body.name)
        throw new DomainError("VALIDATION_ERROR", "name is required for create", { field: "name" });
      const created = await createApiKey({
        name: body.name,
        contact: account.email,
        scopes: body.scopes ?? ACCOUNT_KEY_DEFAULT_SCOPES,
        accountId: account.id,
        ip,
      });
      return { action: "create", ...created };
    }
    case "link": {
      const hash = body.api_key ? sha256Hex(body.api_key.trim()) : undefined;
      const match = hash ? eq(apiKeys.keyHash, hash) : caller ? eq(apiKeys.id, caller.keyId) : undefined;
      if (!match) {
        throw new DomainError(
          "VALIDATION_ERROR",
          "api_key is required for link: paste the full key (or send it as x-api-key with this request)",
          { field: "api_key" },
        );
      }
      const [row] = await db
        .select()
        .from(apiKeys)
        .where(and(match, isNull(apiKeys.revokedAt)));
      if (!row) throw new DomainError("NOT_FOUND", "No active key matches api_key", { field: "api_key" });
      if (row.scopes.includes("admin")) {
        throw new DomainError(
          "VALIDATION_ERROR",
          "An operator (admin) key cannot be linked to a client account",
          {
            field: "api_key",
          },
        );
      }
      if (row.accountId === account.id) return { action: "link", linked: true, key: apiKeyItem(row) };
      const linked = await setKeyAccount(
        and(eq(apiKeys.id, row.id), isNull(apiKeys.accountId), isNull(apiKeys.revokedAt))!,
        account.id,
        "key.link",
        account.id,
      );
      if (!linked) {
        throw new DomainError("CONFLICT", "This key is linked to another account; unlink it there first", {
          field: "api_key",
        });
      }
      return { action: "link", linked: true, key: apiKeyItem(linked) };
    }
    case "revoke": {
      if (!body.key_id)
        throw new DomainError("VALIDATION_ERROR", "key_id is required for revoke", { field: "key_id" });
      const keyId = body.key_id;
      const revoked = await db.transaction(async (tx) => {
        const [row] = await tx
          .update(apiKeys)
          .set({ revokedAt: new Date() })
          .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, account.id), isNull(apiKeys.revokedAt)))
          .returning();
        if (row) {
          await recordAudit(tx, {
            action: "key.revoke",
            targetKind: "api_key",
            targetId: row.id,
            details: { account_id: account.id },
          });
        }
        return row;
      });
      if (!revoked) {
        throw new DomainError("NOT_FOUND", "No active key with this key_id is linked to your account", {
          field: "key_id",
        });
      }
      await forgetCachedKey(revoked.keyHash);
      return { action: "revoke", revoked: true, key_id: revoked.id };
    }
    case "unlink": {
      if (!body.key_id)
        throw new DomainError("VALIDATION_ERROR", "key_id is required for unlink", { field: "key_id" });
      const keyId = body.key_id;
      const [grant] = await db
        .select({ clientId: oauthGrantKeys.clientId })
        .from(oauthGrantKeys)
        .where(eq(oauthGrantKeys.keyId, keyId));
      if (grant) {
        // Unlinked, the key would go on working and pay in USDC: an authorization ends with revoke.
        throw new DomainError(
          "VALIDATION_ERROR",
          "This key backs an OAuth client's authorization: revoke it instead",
          {
            field: "key_id",
          },
        );
      }
      const row = await setKeyAccount(
        and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, account.id))!,
        null,
        "key.unlink",
        account.id,
      );
      if (!row) {
        throw new DomainError("NOT_FOUND", "No key with this key_id is linked to your account", {
          field: "key_id",
        });
      }
      return { action: "unlink", unlinked: true, key_id: row.id };
    }
  }
}
