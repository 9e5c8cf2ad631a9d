/** GET /api/chain-transfers — USDC transfers that paid no task (unmatched, late, reorged), for the operator (admin). */
import { endpoint, route } from "../lib/http/handler.js";
import { listChainTransfers } from "../lib/payments/list-transfers.js";
import { listChainTransfersOperation } from "../lib/payments/operations.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(listChainTransfersOperation, ({ query }) => listChainTransfers(query)),
});
