/** POST /api/dispute-resolve — resolve a dispute: redo, partial or full refund, or reject (admin, disputes.resolve). */
import { endpoint, route } from "../lib/http/handler.js";
import { readDisputeStaffView } from "../lib/tasks/list-disputes.js";
import { resolveDisputeOperation } from "../lib/tasks/operations.js";
import { resolveDispute } from "../lib/tasks/resolve-dispute.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  POST: endpoint(resolveDisputeOperation, async ({ body }) =>
    readDisputeStaffView((await resolveDispute(body)).dispute),
  ),
});
