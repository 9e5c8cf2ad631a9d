/**
 * GET /api/cron/deadline-watch — Vercel Cron, every 5 minutes: flags paid and dispatched tasks
 * with less than a quarter of their execution window left, once each (lib/jobs/deadline-watch.ts).
 */
import { endpoint, route } from "../../lib/http/handler.js";
import { deadlineWatch } from "../../lib/jobs/deadline-watch.js";
import { deadlineWatchOperation } from "../../lib/system/descriptors/operations.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(deadlineWatchOperation, () => deadlineWatch()),
});
