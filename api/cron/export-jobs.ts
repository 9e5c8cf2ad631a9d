/**
 * GET /api/cron/export-jobs — Vercel Cron, every minute: writes the chunks of queued export jobs
 * within EXPORT_JOB_BUDGET_SECONDS and deletes files past their link's expiry (lib/jobs/export-jobs.ts).
 */
import { endpoint, route } from "../../lib/http/handler.js";
import { exportJobsCron } from "../../lib/jobs/export-jobs.js";
import { exportJobsOperation } from "../../lib/system/descriptors/operations.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(exportJobsOperation, () => exportJobsCron()),
});
