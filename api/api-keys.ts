/** /api/api-keys — create (POST), list (GET) and revoke (DELETE) API keys. */
import { endpoint, route } from "../lib/http/handler.js";
import { createApiKey } from "../lib/keys/create-api-key.js";
import { listApiKeys } from "../lib/keys/list-api-keys.js";
import {
  createApiKeyOperation,
  listApiKeysOperation,
  revokeApiKeyOperation,
} from "../lib/keys/operations.js";
import { revokeApiKey } from "../lib/keys/revoke-api-key.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  POST: endpoint(createApiKeyOperation, ({ body, caller, ip }) =>
    createApiKey({ ...body, creator: caller, ip }),
  ),
  GET: endpoint(listApiKeysOperation, ({ caller }) => listApiKeys(caller)),
  DELETE: endpoint(revokeApiKeyOperation, ({ body, caller }) => revokeApiKey(caller, body.key_to_revoke)),
});
