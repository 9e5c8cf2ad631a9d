/** Operation descriptor of GET /api/estimate. */
import { pricingFormula, transportRule } from "../catalog/facts.js";
import { defineOperation } from "../descriptors/operation.js";
import { estimateQuerySchema, estimateResponseSchema } from "./schemas.js";

export const getEstimateOperation = defineOperation({
  id: "getEstimate",
  method: "GET",
  readOnly: true,
  path: "/api/estimate",
  summary: "Estimate the CAD price of a task",
  description: `${pricingFormula()}; exact to the cent. ${transportRule()}.`,
  tags: ["Pricing"],
  auth: "optional",
  query: estimateQuerySchema,
  response: estimateResponseSchema,
  errors: ["MISSING_FIELD", "INVALID_FORMAT", "VALIDATION_ERROR", "LOCATION_NOT_FOUND"],
});
