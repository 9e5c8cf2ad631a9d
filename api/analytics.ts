/** GET /api/analytics — the operator's analytics and compliance exports (admin). */
import { runAnalytics } from "../lib/analytics/analytics.js";
import { CsvExport, JsonExport, LargeExport } from "../lib/analytics/exports.js";
import { analyticsOperation } from "../lib/analytics/operations.js";
import { analyticsExportJob } from "../lib/exports/requests.js";
import { endpoint, route } from "../lib/http/handler.js";
import { attachment, json } from "../lib/http/response.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(analyticsOperation, async ({ query, caller }) => {
    const result = await runAnalytics(query);
    if (result instanceof LargeExport) {
      const accepted = await analyticsExportJob(result, caller);
      return json(accepted.body, 202, { location: accepted.location });
    }
    if (result instanceof CsvExport)
      return attachment(result.body, "text/csv; charset=utf-8", result.filename);
    if (result instanceof JsonExport) {
      return new Response(result.body, { headers: { "content-type": "application/json; charset=utf-8" } });
    }
    return result;
  }),
});
