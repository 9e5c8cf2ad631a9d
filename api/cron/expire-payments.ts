/** GET /api/cron/expire-payments — Vercel Cron, every 5 minutes: expires unpaid tasks after 48 h. */
import { endpoint, route } from "../../lib/http/handler.js";
import { runJob } from "../../lib/jobs/run-job.js";
import { expirePaymentsOperation } from "../../lib/system/operations.js";
import { expireOverduePayments } from "../../lib/tasks/expire-payments.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(expirePaymentsOperation, () =>
    runJob("expire-payments", async () => ({ ...(await expireOverduePayments()) })),
  ),
});
