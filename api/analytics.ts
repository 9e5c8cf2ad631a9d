/** GET /api/analytics — the operator's analytics and compliance exports (admin). */
import { runAnalytics } from "../lib/analytics/analytics.js";
import { analyticsOperation } from "../lib/analytics/operations.js";
import { endpoint, route } from "../lib/http/handler.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(analyticsOperation, ({ query }) => runAnalytics(query)),
});
