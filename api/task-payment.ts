/** POST /api/task-payment — record a payment received out of band (admin). */
import { endpoint, route } from "../lib/http/handler.js";
import { recordPaymentOperation } from "../lib/tasks/operations.js";
import { recordOutOfBandPayment } from "../lib/tasks/state/record-payment.js";
import { taskStatusView } from "../lib/tasks/task-view.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  POST: endpoint(recordPaymentOperation, async ({ body }) =>
    taskStatusView((await recordOutOfBandPayment(body)).task, "admin"),
  ),
});
