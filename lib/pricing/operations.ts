/** Operation descriptor of GET /api/estimate. */
import { defineOperation } from "../descriptors/operation.js";
import { estimateQuerySchema, estimateResponseSchema } from "./schemas.js";

export const getEstimateOperation = defineOperation({
  id: "getEstimate",
  method: "GET",
  path: "/api/estimate",
  summary: "Estimate the CAD price of a task",
  description:
    "50 + site_hours×100 + transport_hours×100 + km_roundtrip×0.90, ×1.25 when urgent; exact to the cent. " +
    "Round trip = 2 × the one-way distance from the Terrebonne hub; transport hours = round-trip km ÷ 60 km/h.",
  tags: ["Pricing"],
  auth: "optional",
  query: estimateQuerySchema,
  response: estimateResponseSchema,
  errors: ["MISSING_FIELD", "INVALID_FORMAT", "VALIDATION_ERROR", "LOCATION_NOT_FOUND"],
});
