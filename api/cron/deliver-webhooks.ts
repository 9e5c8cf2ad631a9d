/**
 * GET /api/cron/deliver-webhooks — Vercel Cron, every minute: dispatches undispatched
 * events, sends due webhook / callback deliveries (retries after 30 s, 5 min, 30 min) and
 * queued e-mails, and purges expired dead letters (lib/events/process-outbox.ts).
 */
import { processOutbox } from "../../lib/events/process-outbox.js";
import { endpoint, route } from "../../lib/http/handler.js";
import { runJob } from "../../lib/jobs/run-job.js";
import { deliverWebhooksOperation } from "../../lib/system/operations.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(deliverWebhooksOperation, () =>
    runJob("deliver-webhooks", async () => ({ ...(await processOutbox({ budgetMs: 40_000, purge: true })) })),
  ),
});
