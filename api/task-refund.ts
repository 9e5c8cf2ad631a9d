/** POST /api/task-refund — settle a refund request: refunded or denied (admin). */
import { endpoint, route } from "../lib/http/handler.js";
import { settleRefundOperation } from "../lib/tasks/operations.js";
import { settleRefund } from "../lib/tasks/settle-refund.js";
import { taskStatusView } from "../lib/tasks/task-view.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  POST: endpoint(settleRefundOperation, async ({ body }) =>
    taskStatusView(await settleRefund(body), "admin"),
  ),
});
