/** Operation descriptors of /api/api-keys. */
import { defineOperation } from "../http/operation.js";
import {
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
    "`admin` can only be granted by a request made with an admin key.",
  tags: ["API keys"],
  auth: "none",
  body: createApiKeyBodySchema,
  response: apiKeyCreatedSchema,
  successStatus: 201,
  idempotent: true,
  rateLimits: ["key_creation"],
  errors: ["MISSING_FIELD", "VALIDATION_ERROR", "FIELD_TOO_LONG", "FORBIDDEN", "RATE_LIMITED"],
});

export const listApiKeysOperation = defineOperation({
  id: "listApiKeys",
  method: "GET",
  path: "/api/api-keys",
  summary: "List active keys registered to the caller's contact (all keys for an admin)",
  tags: ["API keys"],
  auth: "key",
  scope: "audit_only",
  response: apiKeyListSchema,
});

export const revokeApiKeyOperation = defineOperation({
  id: "revokeApiKey",
  method: "DELETE",
  path: "/api/api-keys",
  summary: "Revoke a key permanently (own contact's keys; any key for an admin)",
  tags: ["API keys"],
  auth: "key",
  scope: "audit_only",
  body: revokeApiKeyBodySchema,
  response: apiKeyRevokedSchema,
  idempotent: true,
  errors: ["MISSING_FIELD", "NOT_FOUND"],
});
