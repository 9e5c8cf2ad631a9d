/** Operation descriptor of GET /api/services. */

import { defineOperation } from "../descriptors/operation.js";
import { serviceCountWord } from "./facts.js";
import { servicesListResponseSchema, servicesQuerySchema } from "./schemas.js";

export const listServicesOperation = defineOperation({
  id: "listServices",
  method: "GET",
  readOnly: true,
  path: "/api/services",
  summary: `List the service catalog (${serviceCountWord()} services with their contracts)`,
  description:
    "`id` returns a one-entry list for that service (404 NOT_FOUND when unknown); `contract=false` omits contracts.",
  tags: ["Catalog"],
  auth: "none",
  query: servicesQuerySchema,
  response: servicesListResponseSchema,
  cacheControl: "public, max-age=300",
  errors: ["NOT_FOUND", "VALIDATION_ERROR"],
});
