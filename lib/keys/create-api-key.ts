/** Creates an API key (POST /api/api-keys; `npm run admin:create-key`). */
import { getConfig } from "../config.js";
import { recordAudit } from "../db/audit.js";
import { getDb } from "../db/client.js";
import { DEFAULT_SCOPES, type Scope } from "../db/schema/enums.js";
import { apiKeys } from "../db/schema/index.js";
import { DomainError } from "../errors.js";
import { prefixedId } from "../ids.js";
import { generateApiKey } from "./api-key-format.js";
import type { Caller } from "./authenticate.js";

/** Input of `createApiKey`. */
export interface CreateApiKeyInput {
  name: string;
  contact: string;
  scopes?: Scope[];
  /** The authenticated creator, if any (only an admin may grant `admin`). */
  creator?: Caller | null;
  /** Bypasses the admin check: the host-side admin command. */
  trusted?: boolean;
  ip?: string;
  /**
   * The prepaid account the key bills and reads. Only lib/keys/account-keys.ts sets it, for the
   * account's signed-in, verified owner; POST /api/api-keys never does.
   */
  accountId?: string;
}

/** The creation response (docs/api-conventions.md): the full key appears only here. */
export interface CreatedApiKey {
  api_key: string;
  key_id: string;
  name: string;
  contact: string;
  /** The prepaid account the key is linked to, or null (a plain USDC-paying key). */
  account_id: string | null;
  scopes: Scope[];
  key_hint: string;
  created_at: string;
}

/**
 * Stores a new key (hash only) and returns it once.
 * @throws DomainError FORBIDDEN when `admin` is requested without an admin creator.
 */
export async function createApiKey(input: CreateApiKeyInput): Promise<CreatedApiKey> {
  const scopes = [...new Set(input.scopes ?? DEFAULT_SCOPES)] as Scope[];
  if (scopes.includes("admin") && !input.trusted && !input.creator?.isAdmin) {
    throw new DomainError("FORBIDDEN", "Only an admin key can grant the admin scope", { field: "scopes" });
  }
  const { key, hash, hint } = generateApiKey(getConfig().KEY_PREFIX);
  const db = await getDb();
  const row = await db.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(apiKeys)
      .values({
        id: prefixedId("key"),
        name: input.name,
        contact: input.contact.toLowerCase(),
        keyHash: hash,
        keyHint: hint,
        scopes,
        createdByKeyId: input.creator?.keyId ?? null,
        createdIp: input.ip ?? null,
        accountId: input.accountId ?? null,
      })
      .returning();
    await recordAudit(tx, {
      action: "key.create",
      targetKind: "api_key",
      targetId: inserted!.id,
      details: { scopes, account_id: inserted!.accountId },
    });
    return inserted;
  });
  return {
    api_key: key,
    key_id: row!.id,
    name: row!.name,
    contact: row!.contact,
    account_id: row!.accountId,
    scopes: row!.scopes,
    key_hint: row!.keyHint,
    created_at: row!.createdAt.toISOString(),
  };
}
