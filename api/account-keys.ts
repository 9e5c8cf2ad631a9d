/**
 * /api/account-keys — the signed-in client (JWT) lists (GET) the keys linked to its prepaid account
 * and creates, links or unlinks them (POST). See lib/keys/account-keys.ts.
 */
import { endpoint, route } from "../lib/http/handler.js";
import { listAccountKeys, manageAccountKeys } from "../lib/keys/account-keys.js";
import { listAccountKeysOperation, manageAccountKeysOperation } from "../lib/keys/operations.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(listAccountKeysOperation, ({ client }) => listAccountKeys(client)),
  POST: endpoint(manageAccountKeysOperation, ({ client, caller, body, ip }) =>
    manageAccountKeys(client, caller, body, ip),
  ),
});
