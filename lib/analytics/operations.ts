/** Operation descriptor of GET /api/analytics (admin). */
import { EXPORT_ACCEPTED_RESPONSE } from "../descriptors/export-job.js";
import { defineOperation } from "../descriptors/operation.js";
import { analyticsQuerySchema, analyticsResponseSchema } from "./schemas.js";

export const analyticsOperation = defineOperation({
  id: "getAnalytics",
  method: "GET",
  path: "/api/analytics",
  summary: "Operator analytics: agents, one organization, compliance export (CSV), dashboard",
  description:
    "`action=agents` (requests per X-Agent-Identity), `action=org&org_id=`, `action=export&org_id=&format=csv|json" +
    "&dataset=activity|tasks` (CSV per RFC 4180, formula-like cells quoted), `action=dashboard` (revenue by service " +
    "and ISO week, top clients, completion rate). Sandbox tasks excluded; `date_from`/`date_to` (YYYY-MM-DD, " +
    "America/Toronto), default the last 30 days (dashboard 12 weeks).",
  tags: ["Operator"],
  auth: "admin",
  permission: "analytics.read",
  query: analyticsQuerySchema,
  response: analyticsResponseSchema,
  // export answers text/csv unless format=json; every other action JSON.
  contentType: ["application/json", "text/csv"],
  responses: { 202: EXPORT_ACCEPTED_RESPONSE },
  errors: ["MISSING_FIELD", "VALIDATION_ERROR"],
});
