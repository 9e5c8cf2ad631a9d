/** GET /api/cron/deliver-webhooks — Vercel Cron, every minute: retries due webhook deliveries. */
import { endpoint, route } from "../../lib/http/handler.js";
import { runJob } from "../../lib/jobs/run-job.js";
import { deliverWebhooksOperation } from "../../lib/system/operations.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(deliverWebhooksOperation, () => runJob("deliver-webhooks", async () => ({ delivered: 0 }))),
});
