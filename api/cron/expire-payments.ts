/**
 * GET /api/cron/expire-payments — Vercel Cron, every 5 minutes: expires unpaid tasks after 48 h,
 * purges `Idempotency-Key` records past their 24 h and expired OAuth artifacts, and folds the task
 * roll-ups' appended counter rows (lib/jobs/expire-payments.ts).
 */
import { endpoint, route } from "../../lib/http/handler.js";
import { expirePayments } from "../../lib/jobs/expire-payments.js";
import { expirePaymentsOperation } from "../../lib/system/descriptors/operations.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(expirePaymentsOperation, () => expirePayments()),
});
