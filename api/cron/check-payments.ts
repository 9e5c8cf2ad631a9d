/** GET /api/cron/check-payments — Vercel Cron, every minute: the payment checker. */
import { endpoint, route } from "../../lib/http/handler.js";
import { checkPayments } from "../../lib/jobs/check-payments.js";
import { checkPaymentsOperation } from "../../lib/system/descriptors/operations.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(checkPaymentsOperation, () => checkPayments()),
});
