/** Operation descriptors of /api/api-keys. */
import { defineOperation } from "../descriptors/operation.js";
import {
  accountKeysBodySchema,
  accountKeysListSchema,
  accountKeysResultSchema,
  apiKeyCreatedSchema,
  apiKeyListSchema,
  apiKeyRevokedSchema,
  createApiKeyBodySchema,
  revokeApiKeyBodySchema,
} from "./schemas.js";

export const createApiKeyOperation = defineOperation({
  id: "createApiKey",
  method: "POST",
  path: "/api/api-keys",
  summary: "Create an API key (shown once)",
  description:
    "No authentication. 3 creations per IP per hour. Default scopes `audit_only`, `task_create`; " +
    "`admin` can only be granted by a request made with an admin key. The `contact` e-mail is not verified and " +
    "links the key to no prepaid account: the key pays in USDC until the account's owner links it " +
    "(POST /api/account-keys).",
  tags: ["API keys"],
  auth: "none",
  body: createApiKeyBodySchema,
  response: apiKeyCreatedSchema,
  successStatus: 201,
  idempotent: true,
  anonymousSecret: true,
  rateLimits: ["key_creation"],
  errors: ["MISSING_FIELD", "VALIDATION_ERROR", "FIELD_TOO_LONG", "FORBIDDEN", "RATE_LIMITED"],
});

export const listApiKeysOperation = defineOperation({
  id: "listApiKeys",
  method: "GET",
  path: "/api/api-keys",
  summary:
    "List the active keys the caller sees: itself, the keys it created, the keys linked to its account (all for an admin)",
  tags: ["API keys"],
  auth: "key",
  scope: "audit_only",
  response: apiKeyListSchema,
});

export const revokeApiKeyOperation = defineOperation({
  id: "revokeApiKey",
  method: "DELETE",
  path: "/api/api-keys",
  summary: "Revoke a key permanently (a key the caller sees; any key for an admin)",
  tags: ["API keys"],
  auth: "key",
  scope: "audit_only",
  body: revokeApiKeyBodySchema,
  response: apiKeyRevokedSchema,
  idempotent: true,
  errors: ["MISSING_FIELD", "NOT_FOUND"],
});

export const listAccountKeysOperation = defineOperation({
  id: "listAccountKeys",
  method: "GET",
  path: "/api/account-keys",
  summary: "Client: the API keys linked to my prepaid account",
  description:
    "Credential: the client JWT (`Authorization: Bearer <jwt>` from POST /api/client-auth?action=login). Only keys " +
    "linked here bill the account and read it (GET /api/client-account, /api/billing).",
  tags: ["Accounts"],
  auth: "client",
  response: accountKeysListSchema,
  errors: ["UNAUTHORIZED"],
});

export const manageAccountKeysOperation = defineOperation({
  id: "manageAccountKeys",
  method: "POST",
  path: "/api/account-keys",
  summary: "Client: create a key for my account, link an existing key (full key as proof), or unlink one",
  description:
    "Credential: the client JWT (`Authorization: Bearer <jwt>`); login needs a verified e-mail. `create` {name, " +
    "scopes?} → the new key, shown once, linked to the account. `link` {api_key} → links an existing key; the full " +
    "key proves possession (or send the key as `x-api-key` together with the JWT and omit `api_key`); a key id or " +
    "name alone never links. 404 unknown or revoked key, 409 key linked to another account, 422 admin key. `unlink` " +
    "{key_id} → the key stops billing and reading the account at once (it stays valid and pays in USDC). Keys made " +
    "with POST /api/api-keys are never linked by their typed contact e-mail. No Idempotency-Key: re-linking a linked key " +
    "answers 200 again, a second `unlink` changes nothing (404), and a replayed `create` would hand the new key's secret to whoever " +
    "replayed it (replays are scoped per key or IP, not per account).",
  tags: ["Accounts"],
  auth: "client",
  body: accountKeysBodySchema,
  response: accountKeysResultSchema,
  errors: ["UNAUTHORIZED", "MISSING_FIELD", "VALIDATION_ERROR", "NOT_FOUND", "CONFLICT"],
});
