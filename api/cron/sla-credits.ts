/** GET /api/cron/sla-credits — Vercel Cron, hourly: SLA credits of late tasks (lib/jobs/sla-credits.ts). */
import { endpoint, route } from "../../lib/http/handler.js";
import { slaCredits } from "../../lib/jobs/sla-credits.js";
import { slaCreditsOperation } from "../../lib/system/descriptors/operations.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(slaCreditsOperation, () => slaCredits()),
});
