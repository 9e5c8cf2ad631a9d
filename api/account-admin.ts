/** POST /api/account-admin — the operator's deposits, adjustments, suspensions and discounts (admin). */
import { accountAdmin } from "../lib/accounts/admin-account.js";
import { accountAdminOperation } from "../lib/accounts/operations.js";
import { endpoint, route } from "../lib/http/handler.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  POST: endpoint(accountAdminOperation, ({ body, caller }) => accountAdmin(caller, body)),
});
