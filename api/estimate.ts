/** GET /api/estimate — price estimate in CAD with a breakdown. */
import { endpoint, route } from "../lib/http/handler.js";
import { estimateNow } from "../lib/pricing/get-estimate.js";
import { getEstimateOperation } from "../lib/pricing/operations.js";

export const { GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE } = route({
  GET: endpoint(getEstimateOperation, ({ query }) => estimateNow(query)),
});
