/** GET /api/disputes — the disputes queue, open first and oldest first (admin, disputes.read). */
import { endpoint, route } from "../lib/http/handler.js";
import { listDisputes } from "../lib/tasks/list-disputes.js";
import { listDisputesOperation } from "../lib/tasks/operations.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(listDisputesOperation, ({ query }) => listDisputes(query)),
});
