/** /api/client-account — open (POST) and read (GET) prepaid client accounts. */
import { getAccount } from "../lib/accounts/get-account.js";
import { createClientAccountOperation, getClientAccountOperation } from "../lib/accounts/operations.js";
import { registerAccount } from "../lib/accounts/register-account.js";
import { endpoint, route } from "../lib/http/handler.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  POST: endpoint(createClientAccountOperation, ({ body, caller, ip }) =>
    registerAccount({ body, caller, ip }),
  ),
  GET: endpoint(getClientAccountOperation, (ctx) => getAccount(ctx, ctx.query)),
});
