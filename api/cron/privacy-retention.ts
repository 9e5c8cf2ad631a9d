/**
 * GET /api/cron/privacy-retention — Vercel Cron, hourly: de-identifies due erasure requests and
 * deletes activity-log rows and proof files past their retention (lib/jobs/privacy-retention.ts).
 */
import { endpoint, route } from "../../lib/http/handler.js";
import { privacyRetention } from "../../lib/jobs/privacy-retention.js";
import { privacyRetentionOperation } from "../../lib/system/descriptors/operations.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(privacyRetentionOperation, () => privacyRetention()),
});
