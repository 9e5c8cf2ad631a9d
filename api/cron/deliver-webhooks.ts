/**
 * GET /api/cron/deliver-webhooks — Vercel Cron, every minute: dispatches undispatched
 * events, sends due webhook / callback deliveries (retries after 30 s, 5 min, 30 min) and
 * queued e-mails, and purges expired dead letters (lib/jobs/deliver-webhooks.ts).
 */
import { endpoint, route } from "../../lib/http/handler.js";
import { deliverWebhooks } from "../../lib/jobs/deliver-webhooks.js";
import { deliverWebhooksOperation } from "../../lib/system/descriptors/operations.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(deliverWebhooksOperation, () => deliverWebhooks()),
});
