/** /api/billing — balance and transactions (GET), budget pre-authorization (POST). Scope billing_read. */
import { getBilling } from "../lib/billing/get-billing.js";
import { getBillingOperation, preAuthorizeOperation } from "../lib/billing/operations.js";
import { preAuthorize } from "../lib/billing/preauthorize.js";
import { endpoint, route } from "../lib/http/handler.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(getBillingOperation, ({ caller, query }) => getBilling(caller, query)),
  POST: endpoint(preAuthorizeOperation, ({ caller, body }) =>
    preAuthorize(caller, body.agent_id, body.max_cost_cad),
  ),
});
