/** POST /api/task-payment — record a payment received out of band (admin). */
import { endpoint, route } from "../lib/http/handler.js";
import { recordPaymentOperation } from "../lib/tasks/operations.js";
import { recordPayment } from "../lib/tasks/record-payment.js";
import { taskStatusView } from "../lib/tasks/task-view.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  POST: endpoint(recordPaymentOperation, async ({ body, caller }) => {
    const { task } = await recordPayment(body.task_id, {
      method: body.tx_hash ? "usdc" : "manual",
      network: body.network,
      txHash: body.tx_hash,
      note: body.note,
    });
    return taskStatusView(task, caller);
  }),
});
